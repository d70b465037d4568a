import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plans, subscriptions } from '../../db/schema.js';
import { buildAccount, buildMember, call } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('GET /api/plans', () => {
  it('lists the seeded plans in order, without a token', async () => {
    const res = await call(t.app, 'GET', '/api/plans');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.message).toBe('Plans retrieved successfully');
    const list = res.body.data as { id: number; name: string; description: string; price: number | null; features: string[] }[];
    expect(list.map((p) => [p.name, p.price])).toEqual([
      ['Starter', 0],
      ['Professional', 49],
      ['Enterprise', null],
    ]);
    for (const plan of list) {
      expect(Object.keys(plan).sort()).toEqual(['description', 'features', 'id', 'name', 'price']);
      expect(plan.description.length).toBeGreaterThan(0);
      expect(plan.features.length).toBeGreaterThan(0);
    }
    expect(list[0]!.features).toContain('Up to 100 monthly chats');
  });

  it('answers the same to a signed-in user', async () => {
    const owner = await buildAccount(t.app);
    const anonymous = await call(t.app, 'GET', '/api/plans');
    const signedIn = await call(t.app, 'GET', '/api/plans', { token: owner.token });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toEqual(anonymous.body);
  });
});

describe('GET /api/user/subscriptions', () => {
  it("shows a new owner's 14-day Professional trial, with an empty reference", async () => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'GET', '/api/user/subscriptions', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.message).toBe('Subscriptions retrieved successfully');
    expect(res.body.data).toHaveLength(1);
    const [trial] = res.body.data;
    expect(trial).toEqual({
      id: expect.any(Number),
      plan_name: 'Professional (trial)',
      amount: 0,
      status: 'trial',
      is_active: true,
      payment_reference: '',
      start_date: expect.any(String),
      expiry_date: expect.any(String),
    });
    expect(Date.parse(trial.expiry_date) - Date.parse(trial.start_date)).toBe(14 * 86_400_000);
  });

  it("lists newest first, and never another account's rows", async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const [pro] = await t.database.db.select().from(plans).where(eq(plans.code, 'professional'));
    const later = new Date(Date.now() + 60_000);
    await t.database.db.insert(subscriptions).values({
      accountId: owner.user.account_id,
      planId: pro!.id,
      planName: 'Professional',
      amount: 49,
      status: 'active',
      isActive: true,
      paymentReference: `ref_${owner.user.account_id}`,
      startDate: later,
      expiryDate: new Date(later.getTime() + 30 * 86_400_000),
      createdAt: later,
    });
    const res = await call(t.app, 'GET', '/api/user/subscriptions', { token: owner.token });
    expect(res.body.data.map((s: { plan_name: string }) => s.plan_name)).toEqual(['Professional', 'Professional (trial)']);
    expect(res.body.data[0]).toMatchObject({ amount: 49, status: 'active', payment_reference: `ref_${owner.user.account_id}` });
    const theirs = await call(t.app, 'GET', '/api/user/subscriptions', { token: other.token });
    expect(theirs.body.data).toHaveLength(1);
    expect(JSON.stringify(theirs.body)).not.toContain(owner.user.account_id);
  });

  it('is for the owner only: 401 without a token, 403 for Admin-role and Agent members', async () => {
    const owner = await buildAccount(t.app);
    const admin = await buildMember(t.app, owner, 'Admin');
    const agent = await buildMember(t.app, owner, 'Agent');
    expect((await call(t.app, 'GET', '/api/user/subscriptions')).status).toBe(401);
    for (const member of [admin, agent]) {
      const res = await call(t.app, 'GET', '/api/user/subscriptions', { token: member.token });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('You do not have permission to do this');
    }
  });
});
