import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VISITOR_SIDE_EVENTS, RATING_ALREADY_GIVEN, RATING_COMMENT_MAX, RATING_COMMENT_TOO_LONG, RATING_NOT_DUE, RATING_SCORE_INVALID, RATING_SURVEY_OFF } from '@parley/shared';
import { ratings } from '../../db/schema.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { connect, connected, listen, next, silence } from '../../test/sockets.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { assignConversation, buildChattingVisitor, postForm, type TestVisitor } from '../../test/chatFactories.js';

let t: TestApp;
let owner: TestOwner;
beforeAll(async () => {
  t = await createTestApp();
  owner = await buildAccount(t.app, { name: 'Olivia' });
});
afterAll(() => t.close());

const reply = (token: string, v: TestVisitor, text = 'Happy to help') => postForm(t.app, '/api/vms/messages', token, { visitor_id: v.id, message: text });
const state = (v: TestVisitor) => call(t.app, 'GET', '/api/widget/rating', { token: v.token });
const rate = (v: TestVisitor, body: unknown) => call(t.app, 'POST', '/api/widget/rating', { token: v.token, body });
const resolve = (token: string, v: TestVisitor) => call(t.app, 'POST', `/api/vms/conversations/${v.id}/status`, { token, body: { status: 'resolved' } });
const thread = async (token: string, v: TestVisitor) => (await call(t.app, 'GET', `/api/vms/messages/${v.id}`, { token })).body.data as { sender_type: string; message: string }[];
const storedFor = async () => t.app.database.db.select().from(ratings).where(eq(ratings.accountId, owner.user.account_id));

describe('ratings (CSAT)', () => {
  it('asks only once an agent answered, stores one rating per stretch, and shows it to the team, never to the visitor', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey, 'Where is my order?', 'Vera');
    expect((await state(v)).body.data).toMatchObject({ due: false, stretch: expect.any(String) });
    const early = await rate(v, { score: 5 });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ message: RATING_NOT_DUE, error: RATING_NOT_DUE });

    expect((await reply(owner.token, v)).status).toBe(201);
    expect((await state(v)).body.data.due).toBe(true);
    const ok = await rate(v, { score: 4, comment: '  Quick and kind  ' });
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({ score: 4, comment: 'Quick and kind', agent_id: owner.user.id });

    // Once per stretch: asked no more, a second rating is refused and nothing changes.
    expect((await state(v)).body.data.due).toBe(false);
    const again = await rate(v, { score: 1 });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(RATING_ALREADY_GIVEN);
    const all = await storedFor();
    const conversationId = all.find((r) => r.id === ok.body.data.id)!.conversationId;
    const rows = all.filter((r) => r.conversationId === conversationId);
    expect(rows.map((r) => r.score)).toEqual([4]);

    const lines = (await thread(owner.token, v)).filter((m) => m.sender_type === 'system').map((m) => m.message);
    expect(lines).toContain('Vera rated the conversation 4/5: “Quick and kind”');
    const visitorSees = (await call(t.app, 'GET', '/api/widget/messages', { token: v.token })).body.data as { message: string }[];
    expect(visitorSees.some((m) => m.message.includes('rated the conversation'))).toBe(false);
  });

  it('refuses a score outside 1-5, a fraction and a too long comment, storing nothing', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    await reply(owner.token, v);
    for (const score of [0, 6, 3.5, '4', null]) {
      const res = await rate(v, { score });
      expect(res.status).toBe(422);
      expect(res.body.errors.score).toEqual([RATING_SCORE_INVALID]);
    }
    const long = await rate(v, { score: 3, comment: 'x'.repeat(RATING_COMMENT_MAX + 1) });
    expect(long.status).toBe(422);
    expect(long.body.errors.comment).toEqual([RATING_COMMENT_TOO_LONG]);
    expect((await state(v)).body.data.due).toBe(true);
    expect(await call(t.app, 'POST', '/api/widget/rating', { body: { score: 3 } })).toMatchObject({ status: 401 });
  });

  it('a resolve makes the stretch rateable; a new stretch may be rated again', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    expect((await resolve(owner.token, v)).status).toBe(200);
    expect((await state(v)).body.data.due).toBe(true);
    expect((await rate(v, { score: 2 })).status).toBe(201);
    // The visitor writes again: the conversation reopens, a new stretch, not answered yet.
    expect((await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'One more thing' } })).status).toBe(201);
    expect((await state(v)).body.data.due).toBe(false);
    await reply(owner.token, v, 'Sure');
    expect((await state(v)).body.data.due).toBe(true);
    expect((await rate(v, { score: 5 })).status).toBe(201);
  });

  it('averages per agent and per account for the range, also on the dashboard; an Agent counts only what they may see', async () => {
    const other = await buildAccount(t.app);
    const ada = await buildMember(t.app, owner, 'Agent', { name: 'Ada' });
    const bob = await buildMember(t.app, owner, 'Agent', { name: 'Bob' });
    const before = (await call(t.app, 'GET', '/api/vms/ratings/summary?range=24h', { token: owner.token })).body.data;
    for (const [agent, score] of [[ada, 5], [ada, 4], [bob, 1]] as const) {
      const v = await buildChattingVisitor(t.app, owner.widgetKey);
      await assignConversation(t.app, v.id, agent.id);
      await reply(agent.token, v);
      expect((await rate(v, { score })).status).toBe(201);
    }
    // Another account's rating never counts here.
    const foreign = await buildChattingVisitor(t.app, other.widgetKey);
    await reply(other.token, foreign);
    expect((await rate(foreign, { score: 1 })).status).toBe(201);

    const summary = (await call(t.app, 'GET', '/api/vms/ratings/summary?range=24h', { token: owner.token })).body.data;
    expect(summary.count).toBe(before.count + 3);
    expect(summary.agents).toEqual(
      expect.arrayContaining([
        { user_id: ada.id, name: 'Ada', average: 4.5, count: 2 },
        { user_id: bob.id, name: 'Bob', average: 1, count: 1 },
      ]),
    );
    const all = await storedFor();
    const expected = Math.round((all.reduce((s, r) => s + r.score, 0) / all.length) * 10) / 10;
    expect(summary.average).toBe(expected);
    const stats = (await call(t.app, 'GET', '/api/vms/stats?range=24h', { token: owner.token })).body.data;
    expect(stats.satisfaction).toBe(expected);

    // Ada sees her own conversations (and unassigned ones), so Bob's 1 is not in her figure.
    const adas = (await call(t.app, 'GET', '/api/vms/ratings/summary?range=24h', { token: ada.token })).body.data;
    expect(adas.agents.map((a: { name: string }) => a.name)).not.toContain('Bob');
    const otherStats = (await call(t.app, 'GET', '/api/vms/stats?range=24h', { token: other.token })).body.data;
    expect(otherStats.satisfaction).toBe(1);
    expect((await call(t.app, 'GET', '/api/vms/ratings/summary?range=2d', { token: owner.token })).status).toBe(422);
  });

  it('the owner or an Admin turns the survey off; an Agent may not; off means never asked and refused', async () => {
    const admin = await buildMember(t.app, owner, 'Admin');
    const agent = await buildMember(t.app, owner, 'Agent');
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    await reply(owner.token, v);
    expect((await call(t.app, 'PUT', '/api/vms/ratings/settings', { token: agent.token, body: { enabled: false } })).status).toBe(403);
    expect((await call(t.app, 'GET', '/api/vms/ratings/settings', { token: agent.token })).body.data).toEqual({ enabled: true });
    expect((await call(t.app, 'PUT', '/api/vms/ratings/settings', { token: admin.token, body: { enabled: 'no' } })).status).toBe(422);
    const off = await call(t.app, 'PUT', '/api/vms/ratings/settings', { token: admin.token, body: { enabled: false } });
    expect(off.body).toEqual({ message: 'success', data: { enabled: false } });
    expect((await state(v)).body.data.due).toBe(false);
    const refused = await rate(v, { score: 5 });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(RATING_SURVEY_OFF);
    expect((await call(t.app, 'PUT', '/api/vms/ratings/settings', { token: owner.token, body: { enabled: true } })).body.data).toEqual({ enabled: true });
    expect((await state(v)).body.data.due).toBe(true);
  });

  it('a resolve asks the visitor live; with the survey off it asks nothing', async () => {
    const base = await listen(t.app);
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const w = await buildChattingVisitor(t.app, owner.widgetKey);
    const sockets = [v, w].map((x) => connect(base, { widget_key: owner.widgetKey, visitor_token: x.token }));
    try {
      await Promise.all(sockets.map(connected));
      const asked = next<{ stretch: string }>(sockets[0]!, VISITOR_SIDE_EVENTS.ratingRequested);
      await resolve(owner.token, v);
      expect((await asked).stretch).toBe((await state(v)).body.data.stretch);

      await call(t.app, 'PUT', '/api/vms/ratings/settings', { token: owner.token, body: { enabled: false } });
      const quiet = silence(sockets[1]!, VISITOR_SIDE_EVENTS.ratingRequested, 800);
      await resolve(owner.token, w);
      await quiet;
    } finally {
      for (const s of sockets) s.close();
      await call(t.app, 'PUT', '/api/vms/ratings/settings', { token: owner.token, body: { enabled: true } });
    }
  });
});
