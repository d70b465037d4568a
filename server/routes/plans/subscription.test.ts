import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planInForce } from '../../billing/limits.js';
import { plans, subscriptions } from '../../db/schema.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';

// Issue 12 item 6: downgrade and cancel at the end of the period, trial days kept when paying.
let t: TestApp;
let ids: Record<'starter' | 'professional' | 'enterprise', number>;
const DAY = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  t = await createTestApp();
  const rows = await t.database.db.select().from(plans);
  ids = Object.fromEntries(rows.map((p) => [p.code, p.id])) as typeof ids;
});
afterAll(() => t.close());

/** Pays for Professional through the sandbox checkout (no provider key in tests). */
async function payProfessional(owner: TestOwner): Promise<{ start_date: string; expiry_date: string }> {
  const init = await call(t.app, 'POST', '/api/initialize-payment', { token: owner.token, body: { plan_id: ids.professional } });
  expect(init.status).toBe(200);
  const path = new URL(init.body.authorization_url as string).pathname;
  const paid = await t.app.inject({ method: 'POST', url: `${path}/pay`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
  expect(paid.statusCode).toBe(302);
  const res = await call(t.app, 'GET', `/api/verify-payment/${init.body.reference}`, { token: owner.token });
  expect(res.body.status).toBe('success');
  return res.body.subscription;
}

/** Ends the account's trial now (as if its 14 days were over). */
async function endTrial(owner: TestOwner) {
  await t.database.db
    .update(subscriptions)
    .set({ expiryDate: new Date(Date.now() - 1000) })
    .where(and(eq(subscriptions.accountId, owner.user.account_id), eq(subscriptions.status, 'trial')));
}

const status = (owner: TestOwner) => call(t.app, 'GET', '/api/user/subscription', { token: owner.token });

describe('paying during the trial', () => {
  it('keeps the trial days: the paid month starts when the trial ends', async () => {
    const owner = await buildAccount(t.app);
    const [trial] = await t.database.db.select().from(subscriptions).where(eq(subscriptions.accountId, owner.user.account_id));
    const sub = await payProfessional(owner);
    expect(sub.start_date).toBe(trial!.expiryDate.toISOString());
    expect(new Date(sub.expiry_date).getTime() - new Date(sub.start_date).getTime()).toBeGreaterThanOrEqual(28 * DAY);

    const res = await status(owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'success',
      message: 'Subscription retrieved successfully',
      data: {
        plan: 'Professional',
        trial: true,
        trial_ends_at: trial!.expiryDate.toISOString(),
        paid_plan: 'Professional',
        paid_from: sub.start_date,
        paid_until: sub.expiry_date,
        period_ends_at: sub.expiry_date,
        scheduled_change: null,
      },
    });
    // The trial row stays in force until its end; the paid month follows without a gap.
    const accountId = owner.user.account_id;
    const justAfterTrial = new Date(trial!.expiryDate.getTime() + 1000);
    expect(await planInForce(t.database.db, accountId, justAfterTrial)).toMatchObject({ plan: 'Professional', trial: false, expiresAt: new Date(sub.expiry_date) });
    expect(await planInForce(t.database.db, accountId, new Date(new Date(sub.expiry_date).getTime() + 1000))).toMatchObject({ plan: 'Starter' });
  });

  it('after the trial, a payment starts now', async () => {
    const owner = await buildAccount(t.app);
    await endTrial(owner);
    const sub = await payProfessional(owner);
    expect(Math.abs(new Date(sub.start_date).getTime() - Date.now())).toBeLessThan(60_000);
    expect((await status(owner)).body.data).toMatchObject({ plan: 'Professional', trial: false, trial_ends_at: null, paid_from: sub.start_date, period_ends_at: sub.expiry_date });
  });
});

describe('downgrade to Starter and cancel, at the end of the period', () => {
  it('a downgrade keeps Professional until the paid month ends, then Starter applies', async () => {
    const owner = await buildAccount(t.app);
    await endTrial(owner);
    const sub = await payProfessional(owner);
    const res = await call(t.app, 'POST', '/api/user/subscription/downgrade', { token: owner.token, body: { plan_id: ids.starter } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.message).toBe('Your plan changes to Starter at the end of the current period');
    expect(res.body.data).toMatchObject({
      plan: 'Professional',
      paid_until: sub.expiry_date,
      scheduled_change: { kind: 'downgrade', plan: 'Starter', effective_at: sub.expiry_date },
    });
    const accountId = owner.user.account_id;
    expect((await planInForce(t.database.db, accountId, new Date())).plan).toBe('Professional');
    expect((await planInForce(t.database.db, accountId, new Date(new Date(sub.expiry_date).getTime() + 1))).plan).toBe('Starter');
    // The subscription history is untouched.
    const history = await call(t.app, 'GET', '/api/user/subscriptions', { token: owner.token });
    expect(history.body.data.find((s: { payment_reference: string }) => s.payment_reference)).toMatchObject({ is_active: true, status: 'active' });
    expect((await status(owner)).body.data.scheduled_change).toEqual({ kind: 'downgrade', plan: 'Starter', effective_at: sub.expiry_date });
  });

  it('cancel schedules the end of the period; "keep my plan" drops it; paying again drops it too', async () => {
    const owner = await buildAccount(t.app);
    const trialEnd = (await status(owner)).body.data.trial_ends_at as string;
    // During the trial with nothing paid: the trial's end.
    const cancelled = await call(t.app, 'POST', '/api/user/subscription/cancel', { token: owner.token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.message).toBe('Your subscription ends at the end of the current period');
    expect(cancelled.body.data.scheduled_change).toEqual({ kind: 'cancel', plan: 'Starter', effective_at: trialEnd });

    const kept = await call(t.app, 'DELETE', '/api/user/subscription/scheduled-change', { token: owner.token });
    expect(kept.status).toBe(200);
    expect(kept.body.message).toBe('Your plan stays as it is');
    expect(kept.body.data.scheduled_change).toBeNull();
    const again = await call(t.app, 'DELETE', '/api/user/subscription/scheduled-change', { token: owner.token });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: 'No plan change is scheduled', error: 'No plan change is scheduled' });

    // Cancel during the trial with a paid month queued after it: the paid month's end.
    const sub = await payProfessional(owner);
    const later = await call(t.app, 'POST', '/api/user/subscription/cancel', { token: owner.token });
    expect(later.body.data.scheduled_change).toEqual({ kind: 'cancel', plan: 'Starter', effective_at: sub.expiry_date });
    // Paying another month is the owner's answer: the cancel is gone, the months chain.
    const renewal = await payProfessional(owner);
    expect(renewal.start_date).toBe(sub.expiry_date);
    expect((await status(owner)).body.data).toMatchObject({ scheduled_change: null, paid_until: renewal.expiry_date, period_ends_at: renewal.expiry_date });
  });

  it('on Starter there is nothing to end (409); only Starter can be chosen without paying (422)', async () => {
    const owner = await buildAccount(t.app);
    await endTrial(owner);
    for (const path of ['/api/user/subscription/cancel', '/api/user/subscription/downgrade']) {
      const res = await call(t.app, 'POST', path, { token: owner.token, body: { plan_id: ids.starter } });
      expect(res.status, path).toBe(409);
      expect(res.body.message).toBe('You are on the Starter plan: there is no paid plan or trial to end');
    }
    const active = await buildAccount(t.app);
    for (const plan_id of [ids.professional, ids.enterprise]) {
      const res = await call(t.app, 'POST', '/api/user/subscription/downgrade', { token: active.token, body: { plan_id } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message: 'Only the Starter plan can be chosen without a payment',
        error: 'Only the Starter plan can be chosen without a payment',
        errors: { plan_id: ['Only the Starter plan can be chosen without a payment'] },
      });
    }
    for (const plan_id of [0, -1, 'abc', null, 1.5]) {
      const res = await call(t.app, 'POST', '/api/user/subscription/downgrade', { token: active.token, body: { plan_id } });
      expect(res.status, String(plan_id)).toBe(422);
    }
    expect((await status(active)).body.data.scheduled_change).toBeNull();
  });

  it('is the owner\'s: Admin and Agent get 403, no token 401, and nothing changes', async () => {
    const owner = await buildAccount(t.app);
    for (const role of ['Admin', 'Agent'] as const) {
      const member = await buildMember(t.app, owner, role);
      const calls = [
        ['GET', '/api/user/subscription'],
        ['POST', '/api/user/subscription/downgrade'],
        ['POST', '/api/user/subscription/cancel'],
        ['DELETE', '/api/user/subscription/scheduled-change'],
      ] as const;
      for (const [method, url] of calls) {
        const res = await call(t.app, method, url, { token: member.token, body: method === 'POST' ? { plan_id: ids.starter } : undefined });
        expect(res.status, `${role} ${method} ${url}`).toBe(403);
        expect((await call(t.app, method, url, { body: method === 'POST' ? { plan_id: ids.starter } : undefined })).status).toBe(401);
      }
    }
    expect((await status(owner)).body.data.scheduled_change).toBeNull();
  });

  it("one account's change never touches another's", async () => {
    const a = await buildAccount(t.app);
    const b = await buildAccount(t.app);
    expect((await call(t.app, 'POST', '/api/user/subscription/cancel', { token: a.token })).status).toBe(200);
    expect((await status(b)).body.data.scheduled_change).toBeNull();
    expect((await call(t.app, 'DELETE', '/api/user/subscription/scheduled-change', { token: b.token })).status).toBe(409);
    expect((await status(a)).body.data.scheduled_change).toMatchObject({ kind: 'cancel' });
  });
});

describe('OpenAPI document', () => {
  it('documents the subscription calls and the reply link exchange', async () => {
    const doc = (await call(t.app, 'GET', '/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths['/api/user/subscription'] ?? {})).toEqual(['get']);
    expect(Object.keys(doc.paths['/api/user/subscription/downgrade'] ?? {})).toEqual(['post']);
    expect(Object.keys(doc.paths['/api/user/subscription/cancel'] ?? {})).toEqual(['post']);
    expect(Object.keys(doc.paths['/api/user/subscription/scheduled-change'] ?? {})).toEqual(['delete']);
    expect(Object.keys(doc.paths['/api/widget/resume'] ?? {})).toEqual(['post']);
  });
});
