import { Link } from '@tanstack/react-router';
import { LegalPage } from '../components/landing/LegalPage';

export default function Privacy() {
  return (
    <LegalPage title="Privacy Policy" updated="January 1, 2026">
      <p>
        This policy explains what personal data Parley handles, why, and the choices you have. It covers account holders (businesses
        and their team members) and the website visitors who chat through our widget.
      </p>
      <h2>What we collect</h2>
      <p>
        <strong>Account holders:</strong> name, email address, a hashed password, widget and business settings, and billing records
        (our payment provider handles card details; we never see or store them).
      </p>
      <p>
        <strong>Website visitors:</strong> the messages and images they send, and — if they give them — their name and email. To help
        the business answer, we also record the visitor&apos;s IP address, approximate country (looked up on our own servers), browser
        and device type, and the pages viewed during the chat session.
      </p>
      <h2>How we use it</h2>
      <p>
        Only to provide the service: delivering messages, showing visitor information to the business&apos;s team, producing analytics,
        training that business&apos;s own AI assistant, sending the notifications you switch on, and processing payments. We do not sell
        personal data or use it for advertising.
      </p>
      <h2>Who we share it with</h2>
      <p>
        With the business whose website the visitor chats on, and with service providers that help us run Parley (hosting, email
        delivery, payment processing) under contracts that protect the data. We disclose data to authorities only when the law
        requires it.
      </p>
      <h2>Cookies and storage</h2>
      <p>
        The console keeps your session token in your browser&apos;s local storage. The widget keeps a visitor token so returning visitors
        see their conversation history. We use no advertising or tracking cookies.
      </p>
      <h2>Retention and security</h2>
      <p>
        Data is kept while the account is active and deleted when the account is deleted. Passwords are hashed, sessions can be revoked,
        and each business&apos;s data is isolated from every other&apos;s.
      </p>
      <h2>Your rights</h2>
      <p>
        You can access, correct or delete your data from the console, or ask us to. Visitors can ask the business they chatted with, or
        us, to access or delete their messages.
      </p>
      <h2>Contact</h2>
      <p>
        Privacy questions: privacy@parley.example. See also our <Link to="/terms">Terms of Service</Link>.
      </p>
    </LegalPage>
  );
}
