import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plans, subscriptions } from '../../db/schema.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { callMultipart, pngFile } from '../../test/multipart.js';

const DAY = 86_400_000;
const NEEDS_PRO = 'Removing the Parley branding needs the Professional plan';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const save = (token: string, fields: Record<string, string>, avatar?: ReturnType<typeof pngFile>) =>
  callMultipart(t.app, 'POST', '/api/vms/widget-settings', { token, fields: { name: 'Shop', color: '#123456', ...fields }, ...(avatar ? { files: { avatar } } : {}) });
const consoleView = async (owner: TestOwner) => (await call(t.app, 'GET', '/api/vms/widget-settings', { token: owner.token })).body.data;
const poweredBy = async (owner: TestOwner) =>
  (await call(t.app, 'GET', `/api/widget-settings?unique_code=${owner.widgetKey}`)).body.data.powered_by as string;

/** Every subscription of the account (the trial) ended yesterday: Starter. */
async function endPlans(owner: TestOwner): Promise<void> {
  await t.database.db.update(subscriptions).set({ expiryDate: new Date(Date.now() - DAY) }).where(eq(subscriptions.accountId, owner.user.account_id));
}

async function payProfessional(owner: TestOwner): Promise<void> {
  const [pro] = await t.database.db.select().from(plans).where(eq(plans.code, 'professional'));
  await t.database.db.insert(subscriptions).values({
    accountId: owner.user.account_id, planId: pro!.id, planName: 'Professional', amount: 49, status: 'active', isActive: true,
    paymentReference: `ref-${Math.random()}`, startDate: new Date(Date.now() - DAY), expiryDate: new Date(Date.now() + 29 * DAY),
  });
}

describe('hide_branding (widget setting)', () => {
  it('is off by default: the widget shows the credit', async () => {
    const owner = await buildAccount(t.app);
    expect((await consoleView(owner)).hide_branding).toBe(false);
    expect(await poweredBy(owner)).toBe('Powered by Parley');
  });

  it('is refused on Starter with 403, nothing saved (not even the rest of the form or the avatar)', async () => {
    const owner = await buildAccount(t.app);
    await endPlans(owner);
    const before = await consoleView(owner);
    const res = await save(owner.token, { name: 'Changed', hide_branding: 'true' }, pngFile());
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ message: NEEDS_PRO, error: NEEDS_PRO });
    expect(await consoleView(owner)).toEqual(before);
    expect(await poweredBy(owner)).toBe('Powered by Parley');
    // Keeping the credit on is always allowed.
    const off = await save(owner.token, { hide_branding: 'false' });
    expect(off.status).toBe(200);
    expect(off.body.data.hide_branding).toBe(false);
  });

  it('is honoured during the Professional trial and on a paid Professional plan', async () => {
    const trial = await buildAccount(t.app);
    const res = await save(trial.token, { hide_branding: 'true' });
    expect(res.status).toBe(200);
    expect(res.body.data.hide_branding).toBe(true);
    expect(await poweredBy(trial)).toBe('');

    const paid = await buildAccount(t.app);
    await endPlans(paid);
    await payProfessional(paid);
    const json = await call(t.app, 'POST', '/api/vms/widget-settings', { token: paid.token, body: { name: 'Paid', color: '#123456', hide_branding: true } });
    expect(json.status).toBe(200);
    expect(await poweredBy(paid)).toBe('');
  });

  it('brings the credit back when the plan runs out, keeps the choice, and saving without the field works', async () => {
    const owner = await buildAccount(t.app);
    expect((await save(owner.token, { hide_branding: 'true' })).status).toBe(200);
    expect(await poweredBy(owner)).toBe('');
    await endPlans(owner);
    expect(await poweredBy(owner)).toBe('Powered by Parley');
    expect((await consoleView(owner)).hide_branding).toBe(true);
    // Other settings still save on Starter when hide_branding is not sent (it stays as it was).
    const other = await save(owner.token, { name: 'Renamed' });
    expect(other.status).toBe(200);
    expect(other.body.data).toMatchObject({ name: 'Renamed', hide_branding: true });
    expect((await save(owner.token, { hide_branding: 'true' })).status).toBe(403);
    // Paying again honours the stored choice at once.
    await payProfessional(owner);
    expect(await poweredBy(owner)).toBe('');
  });

  it('refuses a value that is not a boolean with 422', async () => {
    const owner = await buildAccount(t.app);
    const res = await save(owner.token, { hide_branding: 'maybe' });
    expect(res.status).toBe(422);
    expect(res.body.errors.hide_branding).toEqual(['Must be true or false']);
    expect((await consoleView(owner)).hide_branding).toBe(false);
  });

  it('is a settings write: an Agent gets 403 before the plan is looked at', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const res = await save(agent.token, { hide_branding: 'true' });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('You do not have permission to do this');
    expect(await poweredBy(owner)).toBe('Powered by Parley');
  });
});
