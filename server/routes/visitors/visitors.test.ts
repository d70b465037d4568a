import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call } from '../../test/factories.js';
import { assignConversation, buildChattingVisitor, buildVisitor } from '../../test/chatFactories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const ids = async (token: string): Promise<string[]> =>
  ((await call(t.app, 'GET', '/api/vms/visitor', { token })).body.data as { id: string }[]).map((v) => v.id);

describe('GET /api/vms/visitor', () => {
  it('needs a token', async () => {
    const res = await call(t.app, 'GET', '/api/vms/visitor');
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('No authentication token found');
    expect((await call(t.app, 'GET', '/api/vms/visitor', { token: 'forged' })).status).toBe(401);
  });

  it("lists the account's visitors newest first, with the documented fields and no token hash", async () => {
    const o = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
    const first = await buildVisitor(
      t.app,
      o.widgetKey,
      { name: 'Ann', email: 'ann@example.com', page_url: 'https://shop.example.com/cart', referrer: 'https://google.com/', locale: 'en-US' },
      { 'user-agent': chrome },
    );
    const second = await buildVisitor(t.app, o.widgetKey);
    await buildVisitor(t.app, other.widgetKey);

    const res = await call(t.app, 'GET', '/api/vms/visitor', { token: o.token });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('success');
    expect(res.body.data.map((v: { id: string }) => v.id)).toEqual([second.id, first.id]);
    expect(res.body.data[1]).toEqual({
      id: first.id,
      name: 'Ann',
      email: 'ann@example.com',
      country: '',
      ip: '127.0.0.1',
      browser: 'Chrome',
      os: 'Windows',
      device: 'Desktop',
      current_page: 'https://shop.example.com/cart',
      referrer: 'https://google.com/',
      locale: 'en-US',
      page_views: 1,
      last_seen_at: expect.any(String),
      created_at: expect.any(String),
      // Additions of issue 16 (the Visitors page).
      online: false,
      has_conversation: false,
    });
  });

  it('an Agent sees visitors without a conversation and those whose conversation they may see', async () => {
    const o = await buildAccount(t.app);
    const agent = await buildMember(t.app, o, 'Agent');
    const other = await buildMember(t.app, o, 'Agent');
    const browsing = await buildVisitor(t.app, o.widgetKey);
    const unassigned = await buildChattingVisitor(t.app, o.widgetKey);
    const mine = await buildChattingVisitor(t.app, o.widgetKey);
    const theirs = await buildChattingVisitor(t.app, o.widgetKey);
    await assignConversation(t.app, mine.id, agent.id);
    await assignConversation(t.app, theirs.id, other.id);
    expect((await ids(agent.token)).sort()).toEqual([browsing.id, unassigned.id, mine.id].sort());
    expect((await ids(other.token)).sort()).toEqual([browsing.id, unassigned.id, theirs.id].sort());
    expect(await ids(o.token)).toHaveLength(4);
    const admin = await buildMember(t.app, o, 'Admin');
    expect(await ids(admin.token)).toHaveLength(4);
  });
});
