import type { PlanDto } from '@parley/shared';
import { contactSalesHref, isContactSales } from '../../lib/plan';
import { Button, Spinner } from '../ui';
import { planPrice } from './format';

/**
 * Step 1: the plan grid (1, 2 or 3 columns). The second plan is the most popular one. A plan
 * without a price (Enterprise) is not paid online: its card mails sales instead.
 */
export function PlanList({ plans, loading, error, onSelect }: { plans: PlanDto[]; loading: boolean; error: string; onSelect: (plan: PlanDto) => void }) {
  if (loading) {
    return (
      <div className="sub-state" role="status">
        <Spinner /> Loading available plans...
      </div>
    );
  }
  if (error) {
    return (
      <div className="sub-error" role="alert">
        <b>Failed to load plans</b>
        <p>{error}</p>
        <Button variant="secondary" onClick={() => window.location.reload()}>
          Retry
        </Button>
      </div>
    );
  }
  return (
    <ul className="sub-plans">
      {plans.map((plan, i) => {
        const popular = i === 1;
        return (
          <li key={plan.id} className={`sub-plan${popular ? ' popular' : ''}`}>
            {popular && (
              <div className="sub-badges">
                <span className="sub-badge">MOST POPULAR</span>
                <span className="sub-badge alt">BEST VALUE</span>
              </div>
            )}
            <h2>{plan.name}</h2>
            <p className="sub-desc">{plan.description}</p>
            <p className="sub-price">{planPrice(plan)}</p>
            <ul className="sub-features">
              {plan.features.map((f) => (
                <li key={f}>{f}</li>
              ))}
            </ul>
            {isContactSales(plan) ? (
              <a className={`btn btn-${popular ? 'primary' : 'secondary'} btn-md btn-block`} href={contactSalesHref(plan.name)} aria-label={`Contact Sales: ${plan.name}`}>
                Contact Sales
              </a>
            ) : (
              <Button variant={popular ? 'primary' : 'secondary'} block onClick={() => onSelect(plan)} aria-label={`${popular ? 'Get Started' : 'Select Plan'}: ${plan.name}`}>
                {popular ? 'Get Started' : 'Select Plan'}
              </Button>
            )}
          </li>
        );
      })}
    </ul>
  );
}
