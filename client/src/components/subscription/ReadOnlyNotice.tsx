import type { UserDto } from '@parley/shared';
import { shortDate } from './format';

/**
 * The subscription screen for team members (PRODUCT.md section 2: paying and the history are
 * the owner's): the plan in force from the signed-in user, and who can change it. No plan
 * buttons and no owner-only calls.
 */
export function ReadOnlyNotice({ user }: { user: UserDto }) {
  const plan = user.plan;
  let line = "Your account's plan is managed by the account owner.";
  if (plan) {
    const name = `${plan.plan}${plan.trial ? ' (trial)' : ''}`;
    line = plan.expires_at ? `Your account is on the ${name} plan until ${shortDate(plan.expires_at)}.` : `Your account is on the ${name} plan.`;
  }
  return (
    <section className="sub-readonly" aria-labelledby="sub-readonly-title">
      <h1 id="sub-readonly-title">Subscription</h1>
      <p>{line}</p>
      <p>Only the account owner can change the plan, pay, or see the payment history. Ask them if your team needs another plan.</p>
    </section>
  );
}
