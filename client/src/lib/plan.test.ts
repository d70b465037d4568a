import type { UserDto } from '@parley/shared';
import { describe, expect, it } from 'vitest';
import { CHAT_LIMIT_NOTICE, canRemoveBranding, contactSalesHref, isContactSales, showsChatLimitNotice } from './plan';

const plan = (p: Partial<NonNullable<UserDto['plan']>> = {}): NonNullable<UserDto['plan']> => ({
  plan: 'Starter', trial: false, expires_at: null, chats_this_month: 100, chat_limit: 100, limit_reached: true, ...p,
});
const user = (u: Partial<UserDto> = {}): UserDto => ({
  id: 1, name: 'Olivia', email: 'o@example.com', is_admin: true, status: 'active', type: 'owner', role: null,
  account_id: 'a', created_at: '2025-01-01T00:00:00.000Z', permissions: [], plan: plan(), ...u,
});

describe('showsChatLimitNotice', () => {
  it('shows the banner to the owner once the limit is reached', () => {
    expect(showsChatLimitNotice(user())).toBe(true);
    expect(CHAT_LIMIT_NOTICE).toBe("You've reached the Starter plan's 100 chats this month. New visitors see the offline form until you upgrade.");
  });
  it('not below the limit, not to team members, not without a plan or a user', () => {
    expect(showsChatLimitNotice(user({ plan: plan({ chats_this_month: 99, limit_reached: false }) }))).toBe(false);
    expect(showsChatLimitNotice(user({ type: 'team_member', role: 'Admin' }))).toBe(false);
    expect(showsChatLimitNotice(user({ plan: undefined }))).toBe(false);
    expect(showsChatLimitNotice(null)).toBe(false);
  });
});

describe('canRemoveBranding', () => {
  it('is false on Starter only', () => {
    expect(canRemoveBranding(user())).toBe(false);
    expect(canRemoveBranding(user({ plan: plan({ plan: 'Professional', trial: true, chat_limit: null, limit_reached: false }) }))).toBe(true);
    expect(canRemoveBranding(user({ plan: plan({ plan: 'Enterprise' }) }))).toBe(true);
  });
});

describe('Enterprise: contact sales', () => {
  it('a plan without a price is not paid online', () => {
    expect(isContactSales({ price: null })).toBe(true);
    expect(isContactSales({ price: 0 })).toBe(false);
    expect(isContactSales({ price: 49 })).toBe(false);
  });
  it('mails sales with the plan in the subject', () => {
    expect(contactSalesHref('Enterprise')).toBe('mailto:sales@parley.chat?subject=Enterprise%20plan%20enquiry');
  });
});
