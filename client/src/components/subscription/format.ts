import type { PlanDto, SubscriptionDto, SubscriptionStatusDto } from '@parley/shared';

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

/** "March 5, 2027" (UTC, as the server counts periods). */
export function longDate(iso: string): string {
  return new Date(iso).toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
}

/** Whole days from now until `iso`, at least 0. */
export function daysLeft(iso: string, now: Date = new Date()): number {
  return Math.max(0, Math.ceil((new Date(iso).getTime() - now.getTime()) / 86_400_000));
}

const STARTER_AFTER = 'then the Starter plan applies';

/** The current-plan panel: what is in force, until when, and what happens next. */
export function currentPlanText(s: SubscriptionStatusDto, now: Date = new Date()): { title: string; lines: string[] } {
  const title = `Current plan: ${s.plan}${s.trial ? ' (trial)' : ''}`;
  const lines: string[] = [];
  if (s.trial && s.trial_ends_at) {
    const n = daysLeft(s.trial_ends_at, now);
    lines.push(`Your free ${s.plan} trial ends on ${longDate(s.trial_ends_at)} (${n} ${n === 1 ? 'day' : 'days'} left).`);
  }
  if (s.paid_plan && s.paid_from && s.paid_until) {
    lines.push(
      s.trial
        ? `Your paid ${s.paid_plan} month starts when the trial ends and runs until ${longDate(s.paid_until)}.`
        : `Your ${s.paid_plan} plan is paid until ${longDate(s.paid_until)}.`,
    );
  }
  const change = s.scheduled_change;
  if (change) {
    const what = change.kind === 'cancel' ? 'You cancelled' : 'You chose the Starter plan';
    lines.push(`${what}: ${s.paid_plan ?? s.plan} stays until ${longDate(change.effective_at)}, ${STARTER_AFTER}.`);
  } else if (s.paid_until) {
    lines.push(
      `Payments are monthly and do not renew by themselves: pay again before ${longDate(s.paid_until)} to keep ${s.paid_plan} (the new month starts when this one ends), or the Starter plan applies from that day. We email you 7 days and 1 day before.`,
    );
  } else if (s.trial && s.trial_ends_at) {
    lines.push(`After the trial, the Starter plan applies unless you choose a paid plan. Paying during the trial keeps the days left: the paid month starts when the trial ends.`);
  } else {
    lines.push('You are on the free Starter plan: up to 100 new chats a month. Choose Professional for unlimited chats and the AI assistant.');
  }
  return { title, lines };
}

/** Under a paid plan's 'Continue to Payment': when the month being bought starts. */
export function paymentStartText(s: SubscriptionStatusDto | null): string {
  if (!s) return '';
  let text: string;
  if (s.paid_until) text = `This adds one month after the one you have: it starts on ${longDate(s.paid_until)}, when your current month ends.`;
  else if (s.trial && s.trial_ends_at) text = `Your trial's days left are kept: the paid month starts on ${longDate(s.trial_ends_at)}, when the trial ends.`;
  else text = 'The paid month starts today.';
  return s.scheduled_change ? `${text} Paying also cancels your scheduled move to Starter.` : text;
}

/** The Starter plan's detail: what choosing it does now, and whether there is anything to choose. */
export function starterChoice(s: SubscriptionStatusDto | null): { text: string; canDowngrade: boolean } {
  if (!s) return { text: '', canDowngrade: false };
  if (s.scheduled_change) return { text: `The Starter plan applies from ${longDate(s.scheduled_change.effective_at)}, as you chose.`, canDowngrade: false };
  if (s.period_ends_at) {
    const current = s.paid_plan ?? s.plan;
    return {
      text: `${current}${s.paid_until ? '' : ' (trial)'} stays until ${longDate(s.period_ends_at)}; the Starter plan applies from then. Nothing is charged and you can change your mind before that day.`,
      canDowngrade: true,
    };
  }
  return { text: 'You are on the Starter plan already.', canDowngrade: false };
}
