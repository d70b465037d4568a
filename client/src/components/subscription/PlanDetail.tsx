import type { PlanDto } from '@parley/shared';
import { contactSalesHref, isContactSales } from '../../lib/plan';
import { Button } from '../ui';
import { formatDollars } from './format';

interface Props {
  plan: PlanDto;
  popular: boolean;
  paying: boolean;
  error: string;
  onBack: () => void;
  onPay: () => void;
}

/** Step 2: one plan, 'Continue to Payment' and the 'Payment Error' box. */
export function PlanDetail({ plan, popular, paying, error, onBack, onPay }: Props) {
  const custom = isContactSales(plan);
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
        ) : (
          <Button size="lg" block busy={paying} onClick={onPay}>
            {paying ? 'Processing Payment...' : 'Continue to Payment'}
          </Button>
        )}
        <p className="sub-hint">
          You will be redirected to our secure payment provider. Questions? Contact support@parley.example before you pay.
        </p>
      </div>
    </section>
  );
}
