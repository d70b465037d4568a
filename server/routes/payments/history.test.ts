import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SubscriptionDto } from '@parley/shared';
import { plans, subscriptions } from '../../db/schema.js';
import { buildAccount, call, type TestOwner } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';

// Issue 16, "Pagination": the payment history (a row per paid month) pages like every list.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const MONTH = 30 * 86_400_000;

/** `months` paid months (besides the trial), the newest created last; the same second for two of them (a tie the id breaks). */
async function paidMonths(owner: TestOwner, months: number): Promise<void> {
  const [pro] = await t.database.db.select().from(plans).where(eq(plans.code, 'professional'));
  const start = Date.now() + 60_000; // after the trial row the account was created with
  await t.database.db.insert(subscriptions).values(
    Array.from({ length: months }, (_, i) => {
      const at = new Date(start + Math.min(i, months - 2) * MONTH);
      return {
        accountId: owner.user.account_id,
        planId: pro!.id,
        planName: `Professional ${String(i + 1).padStart(2, '0')}`,
        amount: 49,
        status: 'expired',
        isActive: false,
        paymentReference: `hist_${owner.user.account_id}_${i}`,
        startDate: at,
        expiryDate: new Date(at.getTime() + MONTH),
        createdAt: at,
      };
    }),
  );
}

const history = (owner: TestOwner, query = '') => call(t.app, 'GET', `/api/user/subscriptions${query}`, { token: owner.token });
const names = (body: { data: SubscriptionDto[] }) => body.data.map((s) => s.plan_name);

describe('GET /api/user/subscriptions, paged', () => {
  it('pages with limit + cursor, newest first, every row once, with the total', async () => {
    const owner = await buildAccount(t.app);
    await paidMonths(owner, 25);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await history(owner, `?limit=10${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'success', message: 'Subscriptions retrieved successfully', total: 26 });
      expect(res.body.data.length).toBeLessThanOrEqual(10);
      seen.push(...names(res.body));
      cursor = res.body.next_cursor;
      expect(res.body.has_more).toBe(cursor !== null);
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(26);
    expect(new Set(seen).size).toBe(26);
    // The whole list in one SPEC call (no limit) is the same list in the same order.
    const whole = await history(owner);
    expect(names(whole.body)).toEqual(seen);
    expect(seen[0]).toBe('Professional 25');
    expect(seen.at(-1)).toBe('Professional (trial)');
  });

  it("keeps SPEC's answer without limit (every field it had, plus has_more and total)", async () => {
    const owner = await buildAccount(t.app);
    const res = await history(owner);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'success',
      message: 'Subscriptions retrieved successfully',
      data: [expect.objectContaining({ plan_name: 'Professional (trial)', status: 'trial' })],
      next_cursor: null,
      has_more: false,
      total: 1,
    });
  });

  it("refuses a bad limit or cursor, and never shows another account's rows", async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    await paidMonths(owner, 3);
    for (const q of ['?limit=0', '?limit=101', '?limit=x', '?cursor=%%%', '?cursor=WzEsMl0']) {
      const res = await history(owner, q);
      expect(res.status, q).toBe(422);
      expect(Object.keys(res.body.errors), q).toEqual([q.startsWith('?limit') ? 'limit' : 'cursor']);
    }
    const first = await history(owner, '?limit=2');
    const theirs = await history(other, `?limit=2&cursor=${first.body.next_cursor}`);
    expect(theirs.status).toBe(200);
    expect(theirs.body.total).toBe(1);
    expect(JSON.stringify(theirs.body)).not.toContain(owner.user.account_id);
  });
});
