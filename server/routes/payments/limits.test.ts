import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCanStartChat, CHAT_LIMIT_MESSAGE, chatsThisMonth, hasProfessional, planInForce, planSummary } from '../../billing/limits.js';
import { conversations, plans, subscriptions, visitors } from '../../db/schema.js';
import { HttpError } from '../../errors.js';
import { buildAccount } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';

const DAY = 86_400_000;
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** `n` new chats of an account, opened at `at` (one visitor each). */
async function openChats(accountId: string, n: number, at: Date): Promise<void> {
  const db = t.database.db;
  const rows = await db
    .insert(visitors)
    .values(Array.from({ length: n }, () => ({ accountId, tokenHash: `h-${Math.random().toString(36).slice(2)}-${Math.random()}`, createdAt: at })))
    .returning({ id: visitors.id });
  await db.insert(conversations).values(rows.map((v) => ({ accountId, visitorId: v.id, createdAt: at, countedAt: at })));
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => (e instanceof HttpError ? { status: e.statusCode, message: e.message } : { status: 0, message: String(e) }),
  );

describe('plan in force and the trial', () => {
  it('a new account is on the Professional trial for 14 days, then on Starter', async () => {
    const owner = await buildAccount(t.app);
    const db = t.database.db;
    const accountId = owner.user.account_id;
    const now = new Date();
    const inTrial = await planSummary(db, accountId, new Date(now.getTime() + 13 * DAY));
    expect(inTrial).toMatchObject({ plan: 'Professional', trial: true });
    const expiresIn = new Date(inTrial.expires_at!).getTime() - now.getTime();
    expect(Math.abs(expiresIn - 14 * DAY)).toBeLessThan(60_000);
    expect(await hasProfessional(db, accountId, new Date(now.getTime() + 13 * DAY))).toBe(true);

    const after = new Date(now.getTime() + 15 * DAY);
    expect(await planSummary(db, accountId, after)).toEqual({
      plan: 'Starter', trial: false, expires_at: null, chats_this_month: 0, chat_limit: 100, limit_reached: false,
    });
    expect(await hasProfessional(db, accountId, after)).toBe(false);
  });

  it('a paid period beats the trial and ends with its expiry', async () => {
    const owner = await buildAccount(t.app);
    const db = t.database.db;
    const accountId = owner.user.account_id;
    const [pro] = await db.select().from(plans).where(eq(plans.code, 'professional'));
    const start = new Date(Date.now() + 20 * DAY);
    const expiry = new Date(start.getTime() + 30 * DAY);
    await db.insert(subscriptions).values({
      accountId, planId: pro!.id, planName: 'Professional', amount: 49, status: 'active', isActive: true,
      paymentReference: `ref-${Math.random()}`, startDate: start, expiryDate: expiry,
    });
    // Before it starts the trial is what is in force; between trial end and start, Starter.
    expect((await planInForce(db, accountId, new Date(Date.now() + DAY))).trial).toBe(true);
    expect((await planInForce(db, accountId, new Date(Date.now() + 16 * DAY))).plan).toBe('Starter');
    expect(await planSummary(db, accountId, new Date(start.getTime() + DAY))).toEqual({
      plan: 'Professional', trial: false, expires_at: expiry.toISOString(), chats_this_month: 0, chat_limit: null, limit_reached: false,
    });
    expect((await planInForce(db, accountId, new Date(expiry.getTime() + 1))).plan).toBe('Starter');
  });
});

describe('assertCanStartChat (Starter: 100 new chats a calendar month)', () => {
  it('allows 100 new chats in a month, refuses the 101st, and counts afresh next month', async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const db = t.database.db;
    const accountId = owner.user.account_id;
    // A clock past the trial, mid-month so "this month" is unambiguous.
    const base = new Date(Date.now() + 60 * DAY);
    const clock = new Date(Date.UTC(base.getUTCFullYear(), base.getUTCMonth(), 15, 12));
    const lastMonth = new Date(Date.UTC(clock.getUTCFullYear(), clock.getUTCMonth(), 1) - 1);
    await openChats(accountId, 30, lastMonth); // last month's chats do not count
    await openChats(other.user.account_id, 120, clock); // nor another account's

    await openChats(accountId, 99, clock);
    await expect(assertCanStartChat(db, accountId, clock)).resolves.toBeUndefined(); // the 100th may open
    await openChats(accountId, 1, clock);
    expect(await chatsThisMonth(db, accountId, clock)).toBe(100);
    expect(await refusal(assertCanStartChat(db, accountId, clock))).toEqual({ status: 403, message: CHAT_LIMIT_MESSAGE });
    expect(CHAT_LIMIT_MESSAGE).toBe('This account has reached its monthly chat limit');

    const nextMonth = new Date(Date.UTC(clock.getUTCFullYear(), clock.getUTCMonth() + 1, 1));
    await expect(assertCanStartChat(db, accountId, nextMonth)).resolves.toBeUndefined();
  });

  it('does not limit the trial or a paid plan', async () => {
    const owner = await buildAccount(t.app);
    const db = t.database.db;
    const accountId = owner.user.account_id;
    const now = new Date();
    await openChats(accountId, 100, now);
    await expect(assertCanStartChat(db, accountId, now)).resolves.toBeUndefined(); // trial

    // Trial over: end it early and check that the limit applies, then a paid month lifts it.
    await db.update(subscriptions).set({ expiryDate: new Date(now.getTime() - 1) }).where(and(eq(subscriptions.accountId, accountId), eq(subscriptions.status, 'trial')));
    expect((await refusal(assertCanStartChat(db, accountId, now)))?.status).toBe(403);
    const [pro] = await db.select().from(plans).where(eq(plans.code, 'professional'));
    await db.insert(subscriptions).values({
      accountId, planId: pro!.id, planName: 'Professional', amount: 49, status: 'active', isActive: true,
      paymentReference: `ref-${Math.random()}`, startDate: new Date(now.getTime() - DAY), expiryDate: new Date(now.getTime() + 29 * DAY),
    });
    await expect(assertCanStartChat(db, accountId, now)).resolves.toBeUndefined();
  });
});
