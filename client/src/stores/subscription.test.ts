import type { SubscriptionDto } from '@parley/shared';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HISTORY_PAGE, useSubscription } from './subscription';

/** The history's paging against a fake server (fetch stubbed): the calls it makes and what it holds. */
const row = (id: number): SubscriptionDto =>
  ({ id, plan_name: `Month ${id}`, amount: 49, status: 'expired', is_active: false, payment_reference: `r${id}`, start_date: '', expiry_date: '' }) as SubscriptionDto;
const ALL = Array.from({ length: 30 }, (_, i) => row(30 - i));
let calls: URL[] = [];

beforeEach(() => {
  calls = [];
  vi.stubGlobal('localStorage', { getItem: () => 'tok', setItem: () => {}, removeItem: () => {} });
  vi.stubGlobal('fetch', async (input: string) => {
    const url = new URL(input, 'http://console.test');
    calls.push(url);
    const limit = Number(url.searchParams.get('limit') ?? 500);
    const from = Number(url.searchParams.get('cursor') ?? 0);
    const data = ALL.slice(from, from + limit);
    const more = from + limit < ALL.length;
    const body = { status: 'success', message: 'Subscriptions retrieved successfully', data, next_cursor: more ? String(from + limit) : null, has_more: more, total: ALL.length };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  });
  useSubscription.setState({ subscriptions: [], subsNext: null, subsTotal: 0, subsMoreLoading: false });
});
afterEach(() => vi.unstubAllGlobals());

describe('subscription history paging (issue 16)', () => {
  it('loads one page, then "Load more" appends the next until the cursor runs out', async () => {
    const s = () => useSubscription.getState();
    await s().loadSubscriptions();
    expect(calls[0]?.pathname).toBe('/api/user/subscriptions');
    expect(calls[0]?.searchParams.get('limit')).toBe(String(HISTORY_PAGE));
    expect(s().subscriptions).toHaveLength(HISTORY_PAGE);
    expect(s().subsTotal).toBe(30);
    expect(s().subsNext).not.toBeNull();

    await s().loadMoreSubscriptions();
    expect(calls[1]?.searchParams.get('cursor')).toBe(String(HISTORY_PAGE));
    await s().loadMoreSubscriptions();
    expect(s().subscriptions.map((x) => x.id)).toEqual(ALL.map((x) => x.id));
    expect(s().subsNext).toBeNull();
    // Nothing left: no more calls.
    await s().loadMoreSubscriptions();
    expect(calls).toHaveLength(3);
  });

  it('a reload starts again from the first page', async () => {
    const s = () => useSubscription.getState();
    await s().loadSubscriptions();
    await s().loadMoreSubscriptions();
    await s().loadSubscriptions();
    expect(s().subscriptions).toHaveLength(HISTORY_PAGE);
    expect(calls.at(-1)?.searchParams.has('cursor')).toBe(false);
  });
});
