import { describe, expect, it } from 'vitest';
import { currentPlanText, paymentStartText, planPrice, starterChoice, statusTone } from './format';

describe('statusTone (SPEC.md section 4 "Subscription status display")', () => {
  it('is green when active, whatever the status text', () => {
    expect(statusTone({ is_active: true, status: 'pending' })).toBe('green');
  });
  it('is yellow for pending and red for any other status', () => {
    expect(statusTone({ is_active: false, status: 'pending' })).toBe('yellow');
    expect(statusTone({ is_active: false, status: 'expired' })).toBe('red');
    expect(statusTone({ is_active: false, status: 'failed' })).toBe('red');
  });
});

describe('planPrice', () => {
  it('shows dollars per month, or Custom without a price', () => {
    expect(planPrice({ price: 49 })).toBe('$49/month');
    expect(planPrice({ price: 0 })).toBe('$0/month');
    expect(planPrice({ price: 9.5 })).toBe('$9.50/month');
    expect(planPrice({ price: null })).toBe('Custom');
  });
});

describe('the current-plan texts (issue 12)', () => {
  const now = new Date('2027-01-01T00:00:00Z');
  const base = {
    plan: 'Professional' as const,
    trial: false,
    trial_ends_at: null,
    paid_plan: null,
    paid_from: null,
    paid_until: null,
    period_ends_at: null,
    scheduled_change: null,
  };

  it('trial without payment: days left, Starter after, and the days kept when paying', () => {
    const s = { ...base, trial: true, trial_ends_at: '2027-01-11T00:00:00Z', period_ends_at: '2027-01-11T00:00:00Z' };
    expect(currentPlanText(s, now)).toEqual({
      title: 'Current plan: Professional (trial)',
      lines: [
        'Your free Professional trial ends on January 11, 2027 (10 days left).',
        'After the trial, the Starter plan applies unless you choose a paid plan. Paying during the trial keeps the days left: the paid month starts when the trial ends.',
      ],
    });
    expect(paymentStartText(s)).toBe("Your trial's days left are kept: the paid month starts on January 11, 2027, when the trial ends.");
    expect(starterChoice(s)).toEqual({
      text: 'Professional (trial) stays until January 11, 2027; the Starter plan applies from then. Nothing is charged and you can change your mind before that day.',
      canDowngrade: true,
    });
  });

  it('paid: until when, no automatic renewal, reminders; a scheduled cancel says when Starter applies', () => {
    const s = { ...base, paid_plan: 'Professional' as const, paid_from: '2027-01-01T00:00:00Z', paid_until: '2027-02-01T00:00:00Z', period_ends_at: '2027-02-01T00:00:00Z' };
    expect(currentPlanText(s, now).lines).toEqual([
      'Your Professional plan is paid until February 1, 2027.',
      'Payments are monthly and do not renew by themselves: pay again before February 1, 2027 to keep Professional (the new month starts when this one ends), or the Starter plan applies from that day. We email you 7 days and 1 day before.',
    ]);
    expect(paymentStartText(s)).toBe('This adds one month after the one you have: it starts on February 1, 2027, when your current month ends.');
    const cancelled = { ...s, scheduled_change: { kind: 'cancel' as const, plan: 'Starter' as const, effective_at: '2027-02-01T00:00:00Z' } };
    expect(currentPlanText(cancelled, now).lines[1]).toBe('You cancelled: Professional stays until February 1, 2027, then the Starter plan applies.');
    expect(starterChoice(cancelled)).toEqual({ text: 'The Starter plan applies from February 1, 2027, as you chose.', canDowngrade: false });
    expect(paymentStartText(cancelled)).toMatch(/Paying also cancels your scheduled move to Starter\.$/);
  });

  it('Starter: nothing to downgrade', () => {
    const s = { ...base, plan: 'Starter' as const };
    expect(currentPlanText(s, now).title).toBe('Current plan: Starter');
    expect(starterChoice(s)).toEqual({ text: 'You are on the Starter plan already.', canDowngrade: false });
    expect(paymentStartText(s)).toBe('The paid month starts today.');
  });
});
