import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversations, messages, visitors } from '../../db/schema.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call } from '../../test/factories.js';
import { assignConversation, buildChattingVisitor, buildVisitor } from '../../test/chatFactories.js';
import { bucketLayout } from './stats.js';
import { eq } from 'drizzle-orm';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const MOBILE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const DESKTOP_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

describe('GET /api/vms/stats', () => {
  it('counts the account’s real visitors, chats, first response and devices, per range', async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    await buildChattingVisitor(t.app, other.widgetKey, 'elsewhere'); // never counted
    const v1 = await buildVisitor(t.app, owner.widgetKey, {}, { 'user-agent': MOBILE_UA });
    await call(t.app, 'POST', '/api/widget/messages', { token: v1.token, body: { message: 'hi' } });
    await buildVisitor(t.app, owner.widgetKey, {}, { 'user-agent': DESKTOP_UA });
    await buildVisitor(t.app, owner.widgetKey, {}, { 'user-agent': DESKTOP_UA });
    await buildVisitor(t.app, owner.widgetKey, {}, { 'user-agent': DESKTOP_UA });
    // The visitor wrote 90 s ago; the agent answered now.
    await t.database.db.update(messages).set({ createdAt: new Date(Date.now() - 90_000) }).where(eq(messages.senderType, 'visitor'));
    // The conversation keeps its first visitor message time (migration 0017): moved the same way.
    await t.database.db.update(conversations).set({ firstVisitorMessageAt: new Date(Date.now() - 90_000), waitingSince: new Date(Date.now() - 90_000) });
    await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v1.id, message: 'hello!' } });

    const res = await call(t.app, 'GET', '/api/vms/stats?range=24h', { token: owner.token });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ range: '24h', active_visitors: 4, active_chats: 1, devices: { desktop: 75, mobile: 25, tablet: 0 }, satisfaction: null });
    expect(d.avg_first_response_seconds).toBeGreaterThanOrEqual(89);
    expect(d.avg_first_response_seconds).toBeLessThan(120);
    expect(d.series.visitors).toHaveLength(24);
    expect(d.series.visitors.reduce((a: number, b: number) => a + b, 0)).toBe(4);
    expect(d.series.chats.at(-1)).toBe(1);
    expect(d.team_online).toEqual({ online: 0, total: 1 });

    // The range changes the figures: a visitor last seen 3 days ago counts in 7d, not in 24h.
    const old = new Date(Date.now() - 3 * 86_400_000);
    await t.database.db.update(visitors).set({ lastSeenAt: old, createdAt: old }).where(eq(visitors.id, v1.id));
    const day = (await call(t.app, 'GET', '/api/vms/stats?range=24h', { token: owner.token })).body.data;
    const week = (await call(t.app, 'GET', '/api/vms/stats?range=7d&tz_offset=-120', { token: owner.token })).body.data;
    expect(day.active_visitors).toBe(3);
    expect(week.active_visitors).toBe(4);
    expect(week.series.visitors).toHaveLength(7);
    expect(week.series.visitors.reduce((a: number, b: number) => a + b, 0)).toBe(4);
  });

  it('is open to every signed-in user of the account, needs a token, and checks the range', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    expect((await call(t.app, 'GET', '/api/vms/stats', { token: agent.token })).status).toBe(200);
    expect((await call(t.app, 'GET', '/api/vms/stats')).status).toBe(401);
    const bad = await call(t.app, 'GET', '/api/vms/stats?range=1y', { token: owner.token });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.range).toEqual(['range must be 1h, 24h, 7d or 30d']);
  });

  it('counts for an Agent only what the Agent may see (assigned to them or to nobody)', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const other = await buildMember(t.app, owner, 'Agent');
    const mine = await buildChattingVisitor(t.app, owner.widgetKey, 'mine');
    await buildChattingVisitor(t.app, owner.widgetKey, 'nobody’s');
    const theirs = await buildChattingVisitor(t.app, owner.widgetKey, 'theirs');
    await assignConversation(t.app, mine.id, agent.id);
    await assignConversation(t.app, theirs.id, other.id);
    // The other Agent's visitor waited 90 s for an answer: not part of this Agent's response time.
    await t.database.db.update(messages).set({ createdAt: new Date(Date.now() - 90_000) }).where(eq(messages.senderType, 'visitor'));
    // The conversation keeps its first visitor message time (migration 0017): moved the same way.
    await t.database.db.update(conversations).set({ firstVisitorMessageAt: new Date(Date.now() - 90_000), waitingSince: new Date(Date.now() - 90_000) });
    await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: theirs.id, message: 'answer' } });

    const all = (await call(t.app, 'GET', '/api/vms/stats?range=24h', { token: owner.token })).body.data;
    expect(all).toMatchObject({ active_chats: 3, active_visitors: 3 });
    expect(all.series.chats.reduce((a: number, b: number) => a + b, 0)).toBe(3);
    expect(all.avg_first_response_seconds).toBeGreaterThanOrEqual(89);

    const res = await call(t.app, 'GET', '/api/vms/stats?range=24h', { token: agent.token });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d).toMatchObject({ active_chats: 2, active_visitors: 2, avg_first_response_seconds: null });
    expect(d.series.chats.reduce((a: number, b: number) => a + b, 0)).toBe(2);
    expect(d.series.visitors.reduce((a: number, b: number) => a + b, 0)).toBe(2);
  });

  it('lays daily buckets on the browser’s midnight', () => {
    const now = Date.UTC(2026, 10, 22, 1, 30); // 01:30 UTC = 03:30 in UTC+2 (offset -120)
    const b = bucketLayout('7d', now, -120);
    expect(new Date(b.start + 6 * b.size).toISOString()).toBe('2026-11-21T22:00:00.000Z');
    expect(bucketLayout('24h', now, -120).count).toBe(24);
  });
});

describe('page views (I#12 item 13)', () => {
  it('counts each widget load (a page shown with the widget) in its hour, for this account only', async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const load = (key: string, id: string, kind = 'load') => call(t.app, 'POST', '/api/widget/events', { body: { unique_code: key, load_id: id, kind } });
    for (const id of ['page-view-1', 'page-view-2', 'page-view-3']) expect((await load(owner.widgetKey, id)).status).toBe(202);
    await load(owner.widgetKey, 'page-view-1', 'connect'); // the same page connecting is not another view
    await load(other.widgetKey, 'page-view-elsewhere');
    const d = (await call(t.app, 'GET', '/api/vms/stats?range=24h', { token: owner.token })).body.data;
    expect(d.series.page_views).toHaveLength(24);
    expect(d.series.page_views.reduce((a: number, b: number) => a + b, 0)).toBe(3);
    expect(d.series.page_views.at(-1)).toBe(3);
  });
});
