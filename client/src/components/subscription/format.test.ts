import { describe, expect, it } from 'vitest';
import { planPrice, statusTone } from './format';

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
