import type { PlanDto, SubscriptionStatusDto } from '@parley/shared';
import { contactSalesHref, isContactSales } from '../../lib/plan';
import { Button } from '../ui';
import { formatDollars, paymentStartText, starterChoice } from './format';

interface Props {
  plan: PlanDto;
  popular: boolean;
  paying: boolean;
  error: string;
  onBack: () => void;
  onPay: () => void;
  /** The owner's periods: what paying or choosing Starter does, and when. */
  status: SubscriptionStatusDto | null;
  changing: boolean;
  onDowngrade: () => void;
}

/** A plan with a price of 0 (Starter) is chosen without a payment: it applies at the period's end. */
const isFree = (plan: PlanDto) => plan.price === 0;

/** Step 2: one plan, 'Continue to Payment' and the 'Payment Error' box. */
export function PlanDetail({ plan, popular, paying, error, onBack, onPay, status, changing, onDowngrade }: Props) {
  const custom = isContactSales(plan);
  const free = !custom && isFree(plan);
  const starter = free ? starterChoice(status) : null;
  const startText = custom || free ? '' : paymentStartText(status);
  return (
    <section className="sub-detail" aria-labelledby="sub-detail-title">
      <Button variant="ghost" onClick={onBack} disabled={paying}>
        ← Back to Plans
      </Button>
      <div className="sub-detail-card">
        {popular && <span className="sub-badge">POPULAR CHOICE</span>}
        <h2 id="sub-detail-title">{plan.name}</h2>
        <p className="sub-desc">{plan.description}</p>
        <p className="sub-price big">
          {custom ? 'Custom' : `$${formatDollars(plan.price as number)}`}
          <small>{custom ? 'Contact sales for a quote' : 'per month, billed monthly'}</small>
        </p>
        <h3>What&apos;s included</h3>
        <ul className="sub-features">
          {plan.features.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
        {error && (
          <div className="sub-error" role="alert">
            <b>Payment Error</b>
            <p>{error}</p>
          </div>
        )}
        {custom ? (
          // Never paid online (the plan list already mails sales; this covers any other way here).
          <a className="btn btn-primary btn-lg btn-block" href={contactSalesHref(plan.name)}>
            Contact Sales
          </a>
        ) : starter ? (
          <>
            {starter.text && <p className="sub-when">{starter.text}</p>}
            {starter.canDowngrade && (
              <Button size="lg" block busy={changing} onClick={onDowngrade}>
                Downgrade to Starter
              </Button>
            )}
          </>
        ) : (
          <>
            {startText && <p className="sub-when">{startText}</p>}
            <Button size="lg" block busy={paying} onClick={onPay}>
              {paying ? 'Processing Payment...' : 'Continue to Payment'}
            </Button>
          </>
        )}
        {!free && (
          <p className="sub-hint">
            You will be redirected to our secure payment provider. Questions? Contact support@parley.example before you pay.
          </p>
        )}
      </div>
    </section>
  );
}
