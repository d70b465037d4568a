import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payments, plans, subscriptions } from '../../db/schema.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { createTestApp, TEST_DB, type TestApp } from '../../test/harness.js';
import { PaystackStandIn } from './paystackStandIn.js';

let t: TestApp;
const paystack = new PaystackStandIn();
let planIds: Record<'starter' | 'professional' | 'enterprise', number>;

beforeAll(async () => {
  await paystack.start();
  t = await createTestApp();
  // config.ts does not know these yet; the billing code reads them defensively at each call.
  Object.assign(t.config, { paystack: { secretKey: paystack.secret, baseUrl: paystack.baseUrl, currency: 'USD' } });
  const rows = await t.database.db.select().from(plans);
  planIds = Object.fromEntries(rows.map((p) => [p.code, p.id])) as typeof planIds;
});
afterAll(async () => {
  await t.close();
  await paystack.stop();
});

async function initialize(owner: TestOwner): Promise<string> {
  const res = await call(t.app, 'POST', '/api/initialize-payment', {
    token: owner.token,
    body: { plan_id: planIds.professional, email: owner.email, user_id: owner.user.id },
  });
  expect(res.status).toBe(200);
  return res.body.reference as string;
}

const verify = (owner: TestOwner, reference: string) => call(t.app, 'GET', `/api/verify-payment/${reference}`, { token: owner.token });

const webhook = (reference: string, opts: { badSignature?: boolean; signature?: string | null } = {}) => {
  const { body, signature } = paystack.webhook(reference, opts);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.signature !== null) headers['x-paystack-signature'] = opts.signature ?? signature;
  return t.app.inject({ method: 'POST', url: '/api/webhooks/paystack', headers, payload: body });
};

const subscriptionsOf = (reference: string) =>
  t.database.db.select().from(subscriptions).where(eq(subscriptions.paymentReference, reference));
const paymentOf = async (reference: string) => (await t.database.db.select().from(payments).where(eq(payments.reference, reference)))[0]!;

describe('POST /api/initialize-payment (Paystack)', () => {
  it("sends the plan's amount in cents, our reference and the callback, with the owner's email", async () => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'POST', '/api/initialize-payment', {
      token: owner.token,
      body: { plan_id: planIds.professional, email: 'someone-else@example.com', user_id: 999999 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'success',
      message: 'Authorization URL created',
      authorization_url: expect.stringMatching(/^https:\/\/checkout\.paystack\.com\//),
      reference: expect.stringMatching(/^prl-[0-9a-f]{24}$/),
    });
    const sent = paystack.initializeCalls.at(-1)!;
    expect(sent.authorization).toBe(`Bearer ${paystack.secret}`);
    expect(sent.body).toMatchObject({
      amount: 4900,
      currency: 'USD',
      reference: res.body.reference,
      callback_url: 'http://localhost:80/subscription',
      email: owner.email,
    });
    const row = await paymentOf(res.body.reference);
    expect(row).toMatchObject({ accountId: owner.user.account_id, userId: owner.user.id, amount: 4900, currency: 'USD', status: 'pending', provider: 'paystack' });
  });

  it('gives every checkout its own reference', async () => {
    const owner = await buildAccount(t.app);
    expect(await initialize(owner)).not.toBe(await initialize(owner));
  });

  it('refuses Enterprise, Starter, unknown and malformed plans with 422', async () => {
    const owner = await buildAccount(t.app);
    const post = (plan_id: unknown) => call(t.app, 'POST', '/api/initialize-payment', { token: owner.token, body: { plan_id } });
    const enterprise = await post(planIds.enterprise);
    expect(enterprise.status).toBe(422);
    expect(enterprise.body).toEqual({ message: 'Enterprise plans are arranged with sales', error: 'Enterprise plans are arranged with sales' });
    const starter = await post(planIds.starter);
    expect(starter.status).toBe(422);
    expect(starter.body.message).toBe('The Starter plan is free and needs no payment');
    for (const bad of [987654, 'abc', -1, "1' or 1=1", null, 'x'.repeat(10_000)]) {
      const res = await post(bad);
      expect(res.status).toBe(422);
      expect(res.body.errors.plan_id).toEqual(['The selected plan is invalid.']);
    }
    expect((await call(t.app, 'POST', '/api/initialize-payment', { token: owner.token, body: {} })).status).toBe(422);
  });

  it('is for the owner only: 401 without a token, 403 for Admin and Agent members', async () => {
    const owner = await buildAccount(t.app);
    const body = { plan_id: planIds.professional };
    expect((await call(t.app, 'POST', '/api/initialize-payment', { body })).status).toBe(401);
    for (const role of ['Admin', 'Agent'] as const) {
      const member = await buildMember(t.app, owner, role);
      const res = await call(t.app, 'POST', '/api/initialize-payment', { token: member.token, body });
      expect(res.status).toBe(403);
    }
  });

  it('answers 502 when the provider is down, and records the payment as failed', async () => {
    const owner = await buildAccount(t.app);
    paystack.failWith = 503;
    try {
      const res = await call(t.app, 'POST', '/api/initialize-payment', { token: owner.token, body: { plan_id: planIds.professional } });
      expect(res.status).toBe(502);
      expect(res.body.message).toBe('The payment provider is unavailable. Please try again.');
    } finally {
      paystack.failWith = undefined;
    }
    const rows = await t.database.db.select().from(payments).where(eq(payments.accountId, owner.user.account_id));
    expect(rows.map((r) => r.status)).toEqual(['failed']);
  });
});

describe('GET /api/verify-payment/:reference (Paystack)', () => {
  it('activates a month of Professional once; a second verify answers the same subscription', async () => {
    const owner = await buildAccount(t.app);
    const reference = await initialize(owner);
    paystack.settle(reference, { status: 'success', gateway_response: 'Successful' });
    const res = await verify(owner, reference);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.message).toBe('Payment verified successfully');
    const sub = res.body.subscription;
    expect(sub).toMatchObject({ plan_name: 'Professional', amount: 49, status: 'active', is_active: true, payment_reference: reference });
    const start = new Date(sub.start_date);
    const expected = new Date(start);
    expected.setUTCMonth(start.getUTCMonth() + 1);
    if (expected.getUTCDate() !== start.getUTCDate()) expected.setUTCDate(0); // 31st -> last day
    expect(sub.expiry_date).toBe(expected.toISOString());

    const calls = paystack.verifyCalls.length;
    const again = await verify(owner, reference);
    expect(again.body.subscription).toEqual(sub);
    expect(paystack.verifyCalls.length).toBe(calls); // settled: the provider is not asked again

    // Paid during the trial: the trial runs to its end and the paid month starts then (issue 12).
    const history = await call(t.app, 'GET', '/api/user/subscriptions', { token: owner.token });
    const trial = history.body.data.find((s: { plan_name: string }) => s.plan_name === 'Professional (trial)');
    expect(trial).toMatchObject({ is_active: true });
    expect(sub.start_date).toBe(trial.expiry_date);
    expect(history.body.data.filter((s: { is_active: boolean }) => s.is_active)).toEqual(expect.arrayContaining([sub, trial]));
  });

  it.each([
    ['failed', 'Declined', 'Payment failed: Declined'],
    ['abandoned', 'The transaction was not completed', 'Payment was not completed'],
  ])('records a %s payment with its text and activates nothing', async (status, gateway, message) => {
    const owner = await buildAccount(t.app);
    const reference = await initialize(owner);
    paystack.settle(reference, { status, gateway_response: gateway });
    const res = await verify(owner, reference);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status, message, reference });
    expect(await paymentOf(reference)).toMatchObject({ status, statusText: gateway, subscriptionId: null });
    expect(await subscriptionsOf(reference)).toHaveLength(0);
  });

  it.each([
    ['amount', { amount: 4800 }, 'Amount paid (48.00 USD) does not match the plan price (49.00 USD)'],
    ['currency', { currency: 'NGN' }, 'Currency paid (NGN) does not match the plan currency (USD)'],
  ])('refuses a success with the wrong %s', async (_what, patch, text) => {
    const owner = await buildAccount(t.app);
    const reference = await initialize(owner);
    paystack.settle(reference, { status: 'success', gateway_response: 'Successful', ...patch });
    const res = await verify(owner, reference);
    expect(res.body).toEqual({ status: 'failed', message: `Payment failed: ${text}`, reference });
    expect(await paymentOf(reference)).toMatchObject({ status: 'failed', statusText: text });
    expect(await subscriptionsOf(reference)).toHaveLength(0);
  });

  it("answers 404 for another account's, unknown and malformed references; 403 for members", async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const reference = await initialize(owner);
    paystack.settle(reference, { status: 'success' });
    for (const ref of [reference, 'prl-000000000000000000000000', 'bad%20ref%27%3B', 'y'.repeat(90)]) {
      const res = await verify(other, ref);
      expect(res.status).toBe(404);
      expect(res.body.message).toBe('Payment not found');
    }
    expect(await subscriptionsOf(reference)).toHaveLength(0);
    const member = await buildMember(t.app, owner, 'Admin');
    expect((await call(t.app, 'GET', `/api/verify-payment/${reference}`, { token: member.token })).status).toBe(403);
    expect((await call(t.app, 'GET', `/api/verify-payment/${reference}`)).status).toBe(401);
  });

  it('a renewal starts where the paid period ends', async () => {
    const owner = await buildAccount(t.app);
    const first = await initialize(owner);
    paystack.settle(first, { status: 'success' });
    const a = (await verify(owner, first)).body.subscription;
    const second = await initialize(owner);
    paystack.settle(second, { status: 'success' });
    const b = (await verify(owner, second)).body.subscription;
    expect(b.start_date).toBe(a.expiry_date);
    expect(new Date(b.expiry_date).getTime()).toBeGreaterThan(new Date(a.expiry_date).getTime());
  });
});

describe('POST /api/webhooks/paystack', () => {
  it('refuses a bad or missing signature with 401 and changes nothing', async () => {
    const owner = await buildAccount(t.app);
    const reference = await initialize(owner);
    paystack.settle(reference, { status: 'success' });
    for (const opts of [{ badSignature: true }, { signature: null }, { signature: 'abc' }, { signature: '0'.repeat(128) }]) {
      const res = await webhook(reference, opts);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ message: 'Invalid signature', error: 'Invalid signature' });
    }
    expect(await paymentOf(reference)).toMatchObject({ status: 'pending' });
    expect(await subscriptionsOf(reference)).toHaveLength(0);
  });

  it('activates on charge.success; a replay changes nothing', async () => {
    const owner = await buildAccount(t.app);
    const reference = await initialize(owner);
    paystack.settle(reference, { status: 'success', gateway_response: 'Approved' });
    const first = await webhook(reference);
    expect(first.statusCode).toBe(200);
    const [sub] = await subscriptionsOf(reference);
    expect(sub).toMatchObject({ isActive: true, status: 'active', accountId: owner.user.account_id });
    const before = await paymentOf(reference);
    for (let i = 0; i < 3; i++) expect((await webhook(reference)).statusCode).toBe(200);
    expect(await subscriptionsOf(reference)).toEqual([sub]);
    expect(await paymentOf(reference)).toEqual(before);
    // The redirect arriving afterwards answers the same subscription.
    expect((await verify(owner, reference)).body.subscription.id).toBe(sub!.id);
  });

  it('acknowledges unknown references and other events without changes', async () => {
    const owner = await buildAccount(t.app);
    const reference = await initialize(owner);
    paystack.settle(reference, { status: 'success' });
    expect((await webhook(reference, {})).statusCode).toBe(200);
    const other = await initialize(owner);
    paystack.settle(other, { status: 'success' });
    const { body, signature } = paystack.webhook(other, { event: 'transfer.success' });
    const res = await t.app.inject({ method: 'POST', url: '/api/webhooks/paystack', headers: { 'content-type': 'application/json', 'x-paystack-signature': signature }, payload: body });
    expect(res.statusCode).toBe(200);
    expect(await paymentOf(other)).toMatchObject({ status: 'pending' });
  });

  it('refuses a signed success with the wrong amount', async () => {
    const owner = await buildAccount(t.app);
    const reference = await initialize(owner);
    paystack.settle(reference, { status: 'success', amount: 100 });
    expect((await webhook(reference)).statusCode).toBe(200);
    expect(await paymentOf(reference)).toMatchObject({ status: 'failed' });
    expect(await subscriptionsOf(reference)).toHaveLength(0);
  });

  it('webhook and redirect arriving together activate exactly one subscription', async () => {
    const rounds = TEST_DB === 'postgres' ? 20 : 8;
    const owner = await buildAccount(t.app);
    for (let round = 0; round < rounds; round++) {
      const reference = await initialize(owner);
      paystack.settle(reference, { status: 'success' });
      const results = await Promise.all([verify(owner, reference), webhook(reference), verify(owner, reference), webhook(reference)]);
      const ids = [results[0], results[2]].map((r) => {
        const v = r as Awaited<ReturnType<typeof verify>>;
        expect(v.body.status).toBe('success');
        return v.body.subscription.id as number;
      });
      expect(new Set(ids).size).toBe(1);
      const rows = await subscriptionsOf(reference);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.id).toBe(ids[0]);
    }
    // Each round renewed the previous period: no two periods overlap.
    const rows = (await t.database.db.select().from(subscriptions).where(eq(subscriptions.accountId, owner.user.account_id)))
      .filter((r) => r.status === 'active')
      .sort((a, b) => a.startDate.getTime() - b.startDate.getTime());
    expect(rows).toHaveLength(rounds);
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.startDate.getTime()).toBe(rows[i - 1]!.expiryDate.getTime());
  });
});
