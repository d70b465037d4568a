import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { jobs, plans, subscriptions } from '../db/schema.js';
import type { JobContext } from '../jobs/types.js';
import { buildAccount, call, type TestOwner } from '../test/factories.js';
import { decodeHeader, sharedJobsApp, sleep } from '../test/jobs.js';
import { sendRenewalReminder } from './reminders.js';

// Issue 12 item 6: reminders 7 days and 1 day before a paid period ends, as delayed jobs enqueued
// when the payment settles (in-process runner, real SMTP server).
const DAY = 24 * 60 * 60 * 1000;

describe('renewal reminders', { timeout: 90_000 }, () => {
  // One SMTP server and one app for the file; each test has its own account.
  const shared = sharedJobsApp({ runner: 'in-process' });

  async function setup() {
    const app = shared.app;
    const owner = await buildAccount(app, { name: 'Olivia Owner' });
    accountId = owner.user.account_id;
    // Past the trial: the paid month starts now.
    await app.database.db
      .update(subscriptions)
      .set({ expiryDate: new Date(Date.now() - 1000) })
      .where(and(eq(subscriptions.accountId, owner.user.account_id), eq(subscriptions.status, 'trial')));
    return { app, owner };
  }
  let accountId = '';
  /** This test's reminder jobs (the file shares one database). */
  const ofAccount = () => and(eq(jobs.name, 'billing.renewalReminder'), sql`${jobs.payload}->>'accountId' = ${accountId}`);

  async function pay(owner: TestOwner): Promise<{ expiry_date: string }> {
    const app = shared.app;
    const [pro] = await app.database.db.select().from(plans).where(eq(plans.code, 'professional'));
    const init = await call(app, 'POST', '/api/initialize-payment', { token: owner.token, body: { plan_id: pro!.id } });
    const path = new URL(init.body.authorization_url as string).pathname;
    await app.inject({ method: 'POST', url: `${path}/pay`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
    const res = await call(app, 'GET', `/api/verify-payment/${init.body.reference}`, { token: owner.token });
    expect(res.body.status).toBe('success');
    return res.body.subscription;
  }

  const reminderJobs = () => shared.app.database.db.select().from(jobs).where(and(ofAccount(), eq(jobs.status, 'pending')));

  /** The pending reminder jobs once the outbox relay has handed over `n` of them (written with the settlement). */
  async function relayed(n: number) {
    const until = Date.now() + 10_000;
    for (;;) {
      const rows = await reminderJobs();
      if (rows.length >= n || Date.now() > until) return rows;
      await sleep(25);
    }
  }

  /** The clock reaches the reminders: their jobs become due now. */
  const makeDue = () => shared.app.database.db.update(jobs).set({ runAt: new Date() }).where(and(ofAccount(), eq(jobs.status, 'pending')));

  async function allDone() {
    const until = Date.now() + 10_000;
    while ((await shared.app.database.db.select().from(jobs).where(ofAccount())).some((j) => j.status !== 'completed')) {
      if (Date.now() > until) throw new Error('reminder jobs not done');
      await sleep(50);
    }
  }

  const toOwner = (owner: TestOwner) => shared.smtp.mails.filter((m) => m.to.includes(owner.email));

  it('enqueues reminders 7 days and 1 day before the paid month ends, and emails the owner then', async () => {
    const { owner } = await setup();
    const sub = await pay(owner);
    const end = new Date(sub.expiry_date).getTime();
    const pending = await relayed(2);
    expect(pending).toHaveLength(2);
    const runAts = pending.map((j) => j.runAt.getTime()).sort((a, b) => a - b);
    expect(Math.abs(runAts[0]! - (end - 7 * DAY))).toBeLessThan(5000);
    expect(Math.abs(runAts[1]! - (end - 1 * DAY))).toBeLessThan(5000);
    // A second verify of the same payment adds nothing.
    await sleep(100);
    expect(shared.smtp.mails.filter((m) => /plan ends/.test(decodeHeader(m.headers.subject ?? '')))).toHaveLength(0);

    await makeDue();
    await allDone();
    const mails = toOwner(owner).filter((m) => /plan ends/.test(decodeHeader(m.headers.subject ?? '')));
    expect(mails.map((m) => decodeHeader(m.headers.subject!)).sort()).toEqual(['Your Professional plan ends in 7 days', 'Your Professional plan ends tomorrow']);
    const when = new Date(end).toLocaleDateString('en-US', { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
    for (const m of mails) {
      expect(m.text).toContain(`Your Professional plan is paid until ${when} (UTC).`);
      expect(m.text).toContain(`the Starter plan applies from ${when}`);
      expect(m.text).toContain('http://localhost:3000/subscription');
    }
  });

  it('sends nothing for a period that a new payment extended, or after a cancel; the new end gets its own', async () => {
    const { owner } = await setup();
    const first = await pay(owner);
    const second = await pay(owner); // paid in advance: the first end is no longer the end
    expect((await relayed(4)).map((j) => (j.payload as { periodEnd: string }).periodEnd).sort()).toEqual(
      [first.expiry_date, first.expiry_date, second.expiry_date, second.expiry_date].sort(),
    );
    expect((await call(shared.app, 'POST', '/api/user/subscription/cancel', { token: owner.token })).status).toBe(200);
    await makeDue();
    await allDone();
    await sleep(200);
    expect(toOwner(owner).filter((m) => /plan ends/.test(decodeHeader(m.headers.subject ?? '')))).toHaveLength(0);

    // "Keep my plan" brings back the reminders of the end in force.
    expect((await call(shared.app, 'DELETE', '/api/user/subscription/scheduled-change', { token: owner.token })).status).toBe(200);
    const again = await reminderJobs();
    expect(again.map((j) => (j.payload as { periodEnd: string }).periodEnd)).toEqual([second.expiry_date, second.expiry_date]);
    await makeDue();
    await allDone();
    expect(toOwner(owner).filter((m) => /plan ends/.test(decodeHeader(m.headers.subject ?? '')))).toHaveLength(2);
  });

  it('with a controlled clock: sends at the moment, once, and not after the end', async () => {
    const { app, owner } = await setup();
    const sub = await pay(owner);
    const end = new Date(sub.expiry_date);
    const ctx = { db: app.database.db, log: app.log, mailer: { send: async () => ({ messageId: 'x' }), close() {} } } as unknown as JobContext;
    const sent: string[] = [];
    ctx.mailer.send = async (m) => {
      sent.push(m.subject);
      return { messageId: 'x' };
    };
    (ctx as { publicUrl: string }).publicUrl = 'https://parley.example';
    const p = { accountId: owner.user.account_id, periodEnd: sub.expiry_date, daysBefore: 7 as const };
    await sendRenewalReminder(p, ctx, new Date(end.getTime() - 7 * DAY));
    await sendRenewalReminder(p, ctx, new Date(end.getTime() - 7 * DAY + 1000)); // a second run of the job
    expect(sent).toEqual(['Your Professional plan ends in 7 days']);
    await sendRenewalReminder({ ...p, daysBefore: 1 }, ctx, new Date(end.getTime() + 1000));
    expect(sent).toHaveLength(1);
  });
});
