import type { PlanDto, SubscriptionDto } from '@parley/shared';

/** "$49/month", "$0/month", or "Custom" for a plan without a price. */
export function planPrice(plan: Pick<PlanDto, 'price'>): string {
  return plan.price === null || plan.price === undefined ? 'Custom' : `$${formatDollars(plan.price)}/month`;
}

export function formatDollars(amount: number): string {
  return Number.isInteger(amount) ? String(amount) : amount.toFixed(2);
}

/** SPEC.md section 4: is_active green; status pending yellow; any other status red. */
export function statusTone(s: Pick<SubscriptionDto, 'is_active' | 'status'>): 'green' | 'yellow' | 'red' {
  if (s.is_active) return 'green';
  if (s.status === 'pending') return 'yellow';
  return 'red';
}

export function shortDate(value: string | null | undefined): string {
  if (!value) return 'N/A';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? 'N/A' : d.toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric' });
}

export function period(s: Pick<SubscriptionDto, 'start_date' | 'expiry_date'>): string {
  return `${shortDate(s.start_date)} – ${shortDate(s.expiry_date)}`;
}
