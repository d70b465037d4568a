import { Link } from '@tanstack/react-router';
import { LegalPage } from '../components/landing/LegalPage';

export default function Terms() {
  return (
    <LegalPage title="Terms of Service" updated="January 1, 2026">
      <p>
        These terms govern your use of Parley, a live-chat, AI assistant and visitor-management service for websites. By creating an
        account you agree to them on behalf of yourself and the business you represent.
      </p>
      <h2>1. Your account</h2>
      <p>
        You must give accurate registration details and keep your password secret. You are responsible for everything done with your
        account, including by team members you invite. Tell us at once if you suspect unauthorised access.
      </p>
      <h2>2. Free trial and plans</h2>
      <p>
        New accounts get a 14-day free trial of the Professional plan; no credit card is needed. After the trial the Starter plan
        applies unless you choose a paid plan. Paid plans are billed monthly in advance through our payment provider and renew until
        cancelled. Fees already paid are not refunded, except where the law requires it.
      </p>
      <h2>3. Acceptable use</h2>
      <p>
        Do not use Parley to send spam, malware or unlawful content, to harass anyone, or to collect data you have no right to
        collect. Do not try to break, overload or reverse-engineer the service. We may suspend accounts that do.
      </p>
      <h2>4. Your content and your visitors</h2>
      <p>
        You own the conversations, files and settings you and your visitors create. You give us permission to store and process them
        only to run the service for you, including training your account&apos;s own AI assistant. You are responsible for telling your
        website visitors how you use the chat, as explained in our <Link to="/privacy">Privacy Policy</Link>.
      </p>
      <h2>5. Availability and changes</h2>
      <p>
        We work hard to keep Parley available and secure, but the service is provided “as is” without warranties. We may improve or
        change features; we will give notice of changes that materially reduce what a paid plan includes.
      </p>
      <h2>6. Liability</h2>
      <p>
        To the extent the law allows, our total liability for any claim is limited to the fees you paid in the twelve months before
        it, and we are not liable for indirect or consequential losses.
      </p>
      <h2>7. Ending the agreement</h2>
      <p>
        You may delete your account at any time from Settings; your data is then removed. We may end the agreement if you seriously
        breach these terms.
      </p>
      <h2>8. Contact</h2>
      <p>Questions about these terms? Write to legal@parley.example.</p>
    </LegalPage>
  );
}
