import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SNOOZE_IN_PAST, SNOOZE_NEEDS_PENDING } from '@parley/shared';
import { snoozePresetEnd } from '../../commands/conversationLifecycle.js';
import { accounts, conversations, messages } from '../../db/schema.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { assignConversation, buildChattingVisitor, type TestVisitor } from '../../test/chatFactories.js';

let t: TestApp;
let owner: TestOwner;
beforeAll(async () => {
  t = await createTestApp();
  owner = await buildAccount(t.app, { name: 'Olivia' });
});
afterAll(() => t.close());

const status = (token: string, visitorId: string, body: unknown) => call(t.app, 'POST', `/api/vms/conversations/${visitorId}/status`, { token, body });
const assign = (token: string, visitorId: string, userId: number | null) =>
  call(t.app, 'POST', `/api/vms/conversations/${visitorId}/assign`, { token, body: { user_id: userId } });
const conversationOf = async (visitorId: string) =>
  (await t.app.database.db.select().from(conversations).where(eq(conversations.visitorId, visitorId)))[0]!;
const linesOf = async (visitorId: string) => {
  const c = await conversationOf(visitorId);
  return (await t.app.database.db.select().from(messages).where(eq(messages.conversationId, c.id)).orderBy(messages.id))
    .filter((m) => m.senderType === 'system')
    .map((m) => m.message);
};

describe('POST /api/vms/conversations/:visitorId/status', () => {
  it('resolves, snoozes and reopens, with a system line for each change and the new fields in the answer', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const resolved = await status(owner.token, v.id, { status: 'resolved' });
    expect(resolved.status).toBe(200);
    expect(resolved.body.message).toBe('success');
    expect(resolved.body.data).toMatchObject({ visitor_id: v.id, status: 'resolved', snoozed_until: null, resolved_at: expect.any(String), assignee_name: null });

    // Resolving again changes nothing and writes no second line.
    expect((await status(owner.token, v.id, { status: 'resolved' })).status).toBe(200);

    const until = new Date(Date.now() + 2 * 3600_000).toISOString();
    const snoozed = await status(owner.token, v.id, { status: 'pending', snoozed_until: until });
    expect(snoozed.body.data).toMatchObject({ status: 'pending', snoozed_until: until, resolved_at: null });
    // Leaving 'resolved' starts a new stretch.
    expect(new Date(snoozed.body.data.opened_at).getTime()).toBeGreaterThan(new Date(resolved.body.data.opened_at).getTime());

    const untilReply = await status(owner.token, v.id, { status: 'pending' });
    expect(untilReply.body.data).toMatchObject({ status: 'pending', snoozed_until: null });
    const reopened = await status(owner.token, v.id, { status: 'open' });
    expect(reopened.body.data).toMatchObject({ status: 'open', snoozed_until: null });

    const lines = await linesOf(v.id);
    expect(lines).toEqual([
      'Olivia resolved the conversation',
      expect.stringMatching(/^Olivia snoozed the conversation until \w{3} \d+ \w{3} \d{4}, \d\d:\d\d UTC$/),
      'Olivia snoozed the conversation until the visitor replies',
      'Olivia reopened the conversation',
    ]);
  });

  it('turns a snooze preset into a time in the account time zone', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    await t.app.database.db.update(accounts).set({ timeZone: 'Asia/Tokyo' }).where(eq(accounts.id, owner.user.account_id));
    try {
      const res = await status(owner.token, v.id, { status: 'pending', snooze: 'tomorrow' });
      expect(res.status).toBe(200);
      const at = new Date(res.body.data.snoozed_until);
      // 09:00 in Tokyo is 00:00 UTC: tomorrow's is 9 (asked at 23:59 there) to 33 hours (at 00:00) away.
      expect(at.getUTCHours()).toBe(0);
      expect(at.getTime() - Date.now()).toBeGreaterThan(9 * 3600_000 - 60_000);
      expect(at.getTime() - Date.now()).toBeLessThan(33 * 3600_000 + 60_000);
      expect((await linesOf(v.id)).at(-1)).toMatch(/ 09:00 Asia\/Tokyo$/);
    } finally {
      await t.app.database.db.update(accounts).set({ timeZone: 'UTC' }).where(eq(accounts.id, owner.user.account_id));
    }
  });

  it('computes presets: 1 h, tomorrow 09:00, next Monday 09:00', () => {
    const now = new Date('2026-11-25T22:30:00Z'); // a Wednesday, 23:30 in Paris
    expect(snoozePresetEnd('1h', now, 'UTC').toISOString()).toBe('2026-11-25T23:30:00.000Z');
    expect(snoozePresetEnd('tomorrow', now, 'UTC').toISOString()).toBe('2026-11-26T09:00:00.000Z');
    expect(snoozePresetEnd('tomorrow', now, 'Europe/Paris').toISOString()).toBe('2026-11-26T08:00:00.000Z');
    expect(snoozePresetEnd('next_week', now, 'UTC').toISOString()).toBe('2026-11-30T09:00:00.000Z');
    // Already Thursday 07:30 in Tokyo: tomorrow is Friday there.
    expect(snoozePresetEnd('tomorrow', now, 'Asia/Tokyo').toISOString()).toBe('2026-11-27T00:00:00.000Z');
  });

  it('refuses bad input with 422 and changes nothing', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const cases: [unknown, string][] = [
      [{ status: 'closed' }, 'Status must be open, pending or resolved'],
      [{}, 'Status must be open, pending or resolved'],
      [{ status: 'resolved', snoozed_until: new Date(Date.now() + 3600_000).toISOString() }, SNOOZE_NEEDS_PENDING],
      [{ status: 'pending', snoozed_until: new Date(Date.now() - 1000).toISOString() }, SNOOZE_IN_PAST],
      [{ status: 'pending', snoozed_until: 'tomorrow' }, 'snoozed_until must be an ISO date and time'],
      [{ status: 'pending', snooze: 'someday' }, 'Snooze must be 1h, tomorrow or next_week'],
    ];
    for (const [body, message] of cases) {
      const res = await status(owner.token, v.id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.message).toBe(message);
    }
    expect((await conversationOf(v.id)).status).toBe('open');
    expect(await linesOf(v.id)).toEqual([]);
  });

  it('role rules: owner and Admin on any, Agent on theirs and unassigned only, other accounts 404', async () => {
    const admin = await buildMember(t.app, owner, 'Admin');
    const agent = await buildMember(t.app, owner, 'Agent');
    const other = await buildMember(t.app, owner, 'Agent');
    const stranger = await buildAccount(t.app);
    const unassigned = await buildChattingVisitor(t.app, owner.widgetKey);
    const mine = await buildChattingVisitor(t.app, owner.widgetKey);
    const theirs = await buildChattingVisitor(t.app, owner.widgetKey);
    await assignConversation(t.app, mine.id, agent.id);
    await assignConversation(t.app, theirs.id, other.id);

    expect((await status(agent.token, unassigned.id, { status: 'resolved' })).status).toBe(200);
    expect((await status(agent.token, mine.id, { status: 'resolved' })).status).toBe(200);
    const hidden = await status(agent.token, theirs.id, { status: 'resolved' });
    expect(hidden.status).toBe(404);
    expect((await status(stranger.token, theirs.id, { status: 'resolved' })).status).toBe(404);
    expect((await status(stranger.token, '00000000-0000-0000-0000-000000000000', { status: 'resolved' })).status).toBe(404);
    expect((await conversationOf(theirs.id)).status).toBe('open');
    expect((await status(admin.token, theirs.id, { status: 'pending' })).status).toBe(200);
    expect((await status(owner.token, theirs.id, { status: 'resolved' })).status).toBe(200);
    expect((await call(t.app, 'POST', `/api/vms/conversations/${theirs.id}/status`, { body: { status: 'open' } })).status).toBe(401);
  });
});

describe('a visitor message reopens', () => {
  it.each(['resolved', 'pending'] as const)('a %s conversation, with a system line, keeping or starting the stretch', async (from) => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    await status(owner.token, v.id, from === 'pending' ? { status: 'pending', snooze: 'next_week' } : { status: 'resolved' });
    const before = await conversationOf(v.id);
    const res = await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'I am back' } });
    expect(res.status).toBe(201);
    const after = await conversationOf(v.id);
    expect(after).toMatchObject({ status: 'open', snoozedUntil: null, resolvedAt: null, lastMessage: 'I am back' });
    if (from === 'resolved') expect(after.openedAt.getTime()).toBeGreaterThan(before.openedAt.getTime());
    else expect(after.openedAt.getTime()).toBe(before.openedAt.getTime());
    expect((await linesOf(v.id)).at(-1)).toBe('The conversation reopened');
    // An agent's reply does not reopen.
    await status(owner.token, v.id, { status: 'resolved' });
    await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'Anything else?' } });
    expect((await conversationOf(v.id)).status).toBe('resolved');
  });
});

describe('POST /api/vms/conversations/:visitorId/assign', () => {
  let admin: { token: string; id: number };
  let agent: { token: string; id: number };
  let agent2: { token: string; id: number };
  beforeAll(async () => {
    admin = await buildMember(t.app, owner, 'Admin', { name: 'Adam' });
    agent = await buildMember(t.app, owner, 'Agent', { name: 'Bob' });
    agent2 = await buildMember(t.app, owner, 'Agent', { name: 'Cleo' });
  });

  it('owner and Admin assign to any active member and unassign, with system lines', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const res = await assign(owner.token, v.id, agent.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ assignee_id: agent.id, assignee_name: 'Bob' });
    expect((await assign(admin.token, v.id, agent2.id)).body.data).toMatchObject({ assignee_id: agent2.id, assignee_name: 'Cleo' });
    expect((await assign(admin.token, v.id, owner.user.id)).body.data.assignee_id).toBe(owner.user.id);
    expect((await assign(owner.token, v.id, null)).body.data).toMatchObject({ assignee_id: null, assignee_name: null });
    expect(await linesOf(v.id)).toEqual([
      'Olivia assigned the conversation to Bob',
      'Adam assigned the conversation to Cleo',
      'Adam assigned the conversation to Olivia',
      'Olivia unassigned the conversation',
    ]);
  });

  it('Agent claims an unassigned conversation and hands back their own; anything else is 403 or 404', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    expect((await assign(agent.token, v.id, agent2.id)).status).toBe(403);
    const claimed = await assign(agent.token, v.id, agent.id);
    expect(claimed.status).toBe(200);
    expect(claimed.body.data.assignee_id).toBe(agent.id);
    // Now Bob's: Cleo no longer sees it.
    expect((await assign(agent2.token, v.id, agent2.id)).status).toBe(404);
    expect((await assign(agent.token, v.id, agent2.id)).status).toBe(403);
    expect((await assign(agent.token, v.id, null)).body.data.assignee_id).toBeNull();
    expect(await linesOf(v.id)).toEqual(['Bob took the conversation', 'Bob unassigned the conversation']);
    // Someone else's conversation cannot be handed back by an Agent who sees it... they do not.
    await assignConversation(t.app, v.id, agent2.id);
    expect((await assign(agent.token, v.id, null)).status).toBe(404);
  });

  it('refuses a member of another account, a disabled member and bad ids with 422, changing nothing', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey);
    const stranger = await buildAccount(t.app);
    const disabled = await buildMember(t.app, owner, 'Agent', { status: 'disabled' });
    for (const userId of [stranger.user.id, disabled.id, 99_999_999]) {
      const res = await assign(owner.token, v.id, userId);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ user_id: ['User not found'] });
    }
    for (const body of [{}, { user_id: 'x' }, { user_id: 1.5 }]) {
      expect((await call(t.app, 'POST', `/api/vms/conversations/${v.id}/assign`, { token: owner.token, body })).status).toBe(422);
    }
    // Another account's owner cannot even learn the conversation exists.
    expect((await assign(stranger.token, v.id, stranger.user.id)).status).toBe(404);
    expect((await conversationOf(v.id)).assigneeId).toBeNull();
    expect(await linesOf(v.id)).toEqual([]);
  });
});

describe('system lines never reach the visitor', () => {
  it('are in the console history and absent from every widget call', async () => {
    const v: TestVisitor = await buildChattingVisitor(t.app, owner.widgetKey, 'hi');
    const first = await call(t.app, 'GET', '/api/widget/messages', { token: v.token });
    await status(owner.token, v.id, { status: 'resolved' });
    await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'again' } });

    const console_ = await call(t.app, 'GET', `/api/vms/messages/${v.id}`, { token: owner.token });
    expect(console_.body.data.map((m: { sender_type: string; message: string }) => [m.sender_type, m.message])).toEqual([
      ['visitor', 'hi'],
      ['system', 'Olivia resolved the conversation'],
      ['visitor', 'again'],
      ['system', 'The conversation reopened'],
    ]);
    const all = await call(t.app, 'GET', '/api/widget/messages', { token: v.token });
    expect(all.body.data.map((m: { message: string }) => m.message)).toEqual(['hi', 'again']);
    const since = await call(t.app, 'GET', `/api/widget/messages?since_id=${first.body.data[0].id}`, { token: v.token });
    expect(since.body.data.map((m: { message: string }) => m.message)).toEqual(['again']);
    const byCursor = await call(t.app, 'GET', `/api/widget/messages?cursor=${first.body.next_cursor}`, { token: v.token });
    expect(byCursor.body.data.map((m: { message: string }) => m.message)).toEqual(['again']);
  });
});
