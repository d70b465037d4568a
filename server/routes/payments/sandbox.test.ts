import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payments, plans, sandboxCharges, subscriptions } from '../../db/schema.js';
import { buildAccount, call, type TestOwner } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';

// No PAYSTACK_SECRET_KEY: the built-in sandbox provider serves the checkout page.
let t: TestApp;
let professionalId: number;
beforeAll(async () => {
  t = await createTestApp();
  const [row] = await t.database.db.select().from(plans).where(eq(plans.code, 'professional'));
  professionalId = row!.id;
});
afterAll(() => t.close());

async function startCheckout(owner: TestOwner): Promise<{ reference: string; checkoutPath: string }> {
  const res = await call(t.app, 'POST', '/api/initialize-payment', {
    token: owner.token,
    body: { plan_id: professionalId, email: owner.email, user_id: owner.user.id },
  });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('success');
  const url = new URL(res.body.authorization_url as string);
  expect(url.pathname).toBe(`/api/payments/sandbox/checkout/${res.body.reference}`);
  return { reference: res.body.reference, checkoutPath: url.pathname };
}

const choose = (checkoutPath: string, choice: 'pay' | 'decline') =>
  t.app.inject({ method: 'POST', url: `${checkoutPath}/${choice}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });

describe('sandbox checkout', () => {
  it('initialize -> checkout page -> Pay -> back to /subscription -> verify -> a month of Professional', async () => {
    const owner = await buildAccount(t.app);
    const { reference, checkoutPath } = await startCheckout(owner);
    const page = await t.app.inject({ method: 'GET', url: checkoutPath });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('SANDBOX');
    expect(page.body).toContain('49.00 USD');
    expect(page.body).toContain('Professional');
    expect(page.body).toContain(`${checkoutPath}/pay`);
    expect(page.body).toContain(`${checkoutPath}/decline`);

    const paid = await choose(checkoutPath, 'pay');
    expect(paid.statusCode).toBe(302);
    expect(paid.headers.location).toBe(`http://localhost:80/subscription?reference=${reference}`);

    const res = await call(t.app, 'GET', `/api/verify-payment/${reference}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    const sub = res.body.subscription;
    expect(sub).toMatchObject({ plan_name: 'Professional', amount: 49, status: 'active', is_active: true, payment_reference: reference });
    const start = new Date(sub.start_date);
    const expiry = new Date(sub.expiry_date);
    expect(expiry.getUTCMonth()).toBe((start.getUTCMonth() + 1) % 12);
    // Paid during the 14-day trial: the month starts when the trial ends (issue 12).
    expect(Math.abs(start.getTime() - (Date.now() + 14 * 24 * 3600_000))).toBeLessThan(60_000);

    // A second click on Pay changes nothing.
    expect((await choose(checkoutPath, 'pay')).statusCode).toBe(302);
    const rows = await t.database.db.select().from(subscriptions).where(eq(subscriptions.paymentReference, reference));
    expect(rows).toHaveLength(1);
    const after = await t.app.inject({ method: 'GET', url: checkoutPath });
    expect(after.body).toContain('already been completed or declined');
  });

  it('Decline -> verify answers failed and nothing is activated; Pay afterwards changes nothing', async () => {
    const owner = await buildAccount(t.app);
    const { reference, checkoutPath } = await startCheckout(owner);
    const declined = await choose(checkoutPath, 'decline');
    expect(declined.statusCode).toBe(302);
    expect(declined.headers.location).toBe(`http://localhost:80/subscription?reference=${reference}`);
    const res = await call(t.app, 'GET', `/api/verify-payment/${reference}`, { token: owner.token });
    expect(res.body).toEqual({ status: 'failed', message: 'Payment failed: Declined (sandbox)', reference });
    await choose(checkoutPath, 'pay');
    const [payment] = await t.database.db.select().from(payments).where(eq(payments.reference, reference));
    expect(payment).toMatchObject({ status: 'failed', statusText: 'Declined (sandbox)', provider: 'sandbox' });
    expect(await t.database.db.select().from(subscriptions).where(eq(subscriptions.paymentReference, reference))).toHaveLength(0);
  });

  it('a verify while the page is still open answers abandoned; paying later still activates', async () => {
    const owner = await buildAccount(t.app);
    const { reference, checkoutPath } = await startCheckout(owner);
    const early = await call(t.app, 'GET', `/api/verify-payment/${reference}`, { token: owner.token });
    expect(early.body).toEqual({ status: 'abandoned', message: 'Payment was not completed', reference });
    await choose(checkoutPath, 'pay');
    const late = await call(t.app, 'GET', `/api/verify-payment/${reference}`, { token: owner.token });
    expect(late.body.status).toBe('success');
  });

  it('answers 404 for unknown references, and serves no sandbox once a provider key is set', async () => {
    for (const url of ['/api/payments/sandbox/checkout/prl-000000000000000000000000', '/api/payments/sandbox/checkout/%3Cscript%3E']) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
      expect((await choose(url, 'pay')).statusCode).toBe(404);
    }
    const owner = await buildAccount(t.app);
    const { reference, checkoutPath } = await startCheckout(owner);
    const unconfigured = t.config.paystack;
    t.config.paystack = { ...unconfigured, secretKey: 'sk_test_configured', baseUrl: 'http://127.0.0.1:9' };
    try {
      expect((await t.app.inject({ method: 'GET', url: checkoutPath })).statusCode).toBe(404);
      expect((await choose(checkoutPath, 'pay')).statusCode).toBe(404);
      // A sandbox payment is not settled by the real provider either: it stays pending.
      const res = await call(t.app, 'GET', `/api/verify-payment/${reference}`, { token: owner.token });
      expect(res.body).toEqual({ status: 'pending', message: 'Payment is still being processed', reference });
    } finally {
      t.config.paystack = unconfigured;
    }
  });

  it('refuses webhooks while no provider key is configured', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks/paystack',
      headers: { 'content-type': 'application/json', 'x-paystack-signature': '0'.repeat(128) },
      payload: '{"event":"charge.success","data":{"reference":"x"}}',
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('PAYMENT_SANDBOX=false without a Paystack key', () => {
  let off: TestApp;
  beforeAll(async () => {
    off = await createTestApp({ PAYMENT_SANDBOX: 'false' });
  });
  afterAll(() => off.close());

  it('refuses plan payments with a clear error, creates nothing, and serves no checkout page', async () => {
    const owner = await buildAccount(off.app);
    const [plan] = await off.database.db.select().from(plans).where(eq(plans.code, 'professional'));
    const res = await call(off.app, 'POST', '/api/initialize-payment', { token: owner.token, body: { plan_id: plan!.id } });
    expect(res.status).toBe(503);
    const message = 'Plan payments are not available on this server: no payment provider is configured.';
    expect(res.body).toEqual({ message, error: message, code: 'unavailable' });
    expect(await off.database.db.select().from(payments)).toHaveLength(0);
    expect(await off.database.db.select().from(sandboxCharges)).toHaveLength(0);
    expect((await off.app.inject({ method: 'GET', url: '/api/payments/sandbox/checkout/prl-abc' })).statusCode).toBe(404);
  });

  it('a sandbox payment started before the switch is never settled by the sandbox afterwards', async () => {
    const owner = await buildAccount(off.app);
    const [plan] = await off.database.db.select().from(plans).where(eq(plans.code, 'professional'));
    const reference = 'prl-before-switch';
    await off.database.db.insert(payments).values({ reference, accountId: owner.user.account_id, userId: owner.user.id, planId: plan!.id, amount: 4900, currency: 'USD', provider: 'sandbox' });
    await off.database.db.insert(sandboxCharges).values({ reference, amount: 4900, currency: 'USD', email: owner.email });
    const pay = await off.app.inject({ method: 'POST', url: `/api/payments/sandbox/checkout/${reference}/pay`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
    expect(pay.statusCode).toBe(404);
    expect(await off.database.db.select().from(subscriptions).where(eq(subscriptions.paymentReference, reference))).toHaveLength(0);
  });
});
