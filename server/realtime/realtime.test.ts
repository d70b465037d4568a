
import { beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { EVENTS } from '@parley/shared';
import { authTokens } from '../db/schema.js';
import { forgetPresence, isAgentOnline } from '../services/presence.js';
import { buildAccount, buildMember, call, type TestOwner } from '../test/factories.js';
import { assignConversation, buildChattingVisitor, buildVisitor } from '../test/chatFactories.js';
import { connect, connected, emitAck, next, silence, liveTestApp } from '../test/sockets.js';

const t = liveTestApp();
const { track } = t;
let owner: TestOwner;

beforeAll(async () => {
  owner = await buildAccount(t.app);
});

const agentSocket = async (token: string) => {
  const s = track(connect(t.base, { token }));
  await connected(s);
  return s;
};
const widgetSocket = async (visitorToken: string, widgetKey = owner.widgetKey) => {
  const s = track(connect(t.base, { widget_key: widgetKey, visitor_token: visitorToken }));
  await connected(s);
  return s;
};

describe('socket authentication', () => {
  it('refuses a missing or bad token, a wrong widget key, and a console socket from a foreign origin', async () => {
    const visitor = await buildVisitor(t.app, owner.widgetKey);
    const other = await buildAccount(t.app);
    const bad = [
      connect(t.base, {}),
      connect(t.base, { token: 'forged' }),
      connect(t.base, { widget_key: 'nope', visitor_token: 'nope' }),
      connect(t.base, { widget_key: other.widgetKey, visitor_token: visitor.token }),
      connect(t.base, { token: owner.token }, { origin: 'https://evil.example' }),
    ];
    const results = await Promise.allSettled(bad.map((s) => connected(track(s))));
    expect(results.map((r) => r.status)).toEqual(Array(bad.length).fill('rejected'));
    // The same widget from any origin is fine: it is embedded in other sites.
    const fromSite = track(connect(t.base, { widget_key: owner.widgetKey, visitor_token: visitor.token }, { origin: 'https://shop.example' }));
    await connected(fromSite);
  });
});

describe('live chat on one node', () => {
  it('delivers visitor and agent messages both ways, stored first, with typing and seen', async () => {
    const visitor = await buildVisitor(t.app, owner.widgetKey, { name: 'Live Lara' });
    const agent = await agentSocket(owner.token);
    const widget = await widgetSocket(visitor.token);

    const arrived = next(agent, EVENTS.messageCreated, (p) => p.message.visitor_id === visitor.id);
    const created = next(agent, EVENTS.conversationCreated, (p) => p.conversation.visitor_id === visitor.id);
    const ack = await emitAck(widget, EVENTS.messageSend, { message: 'Is anyone there?', client_id: 'w-1' });
    expect(ack.ok).toBe(true);
    const pushed = await arrived;
    expect(pushed.message).toEqual(ack.data);
    expect(pushed.conversation.visitor_name).toBe('Live Lara');
    expect((await created).conversation.unread_count).toBe(1);
    // A message on a going conversation carries the conversation as it is now (the console's list).
    const second = next(agent, EVENTS.messageCreated, (p) => p.message.client_id === 'w-2');
    expect((await emitAck(widget, EVENTS.messageSend, { message: 'Hello?', client_id: 'w-2' })).ok).toBe(true);
    expect((await second).conversation).toMatchObject({ visitor_id: visitor.id, last_message: 'Hello?', unread_count: 2 });

    const typing = next(widget, EVENTS.typing);
    agent.emit(EVENTS.typing, { visitor_id: visitor.id, typing: true });
    expect(await typing).toEqual({ typing: true, from: 'agent', name: 'Olivia Owner' });
    const visitorTyping = next(agent, EVENTS.typing, (p) => p.visitor_id === visitor.id);
    widget.emit(EVENTS.typing, { typing: true });
    expect(await visitorTyping).toEqual({ visitor_id: visitor.id, typing: true, from: 'visitor' });

    const reply = next(widget, EVENTS.messageCreated);
    const agentAck = await emitAck(agent, EVENTS.messageSend, { visitor_id: visitor.id, message: 'Yes, hello!', client_id: 'a-1' });
    expect(agentAck.ok).toBe(true);
    expect((await reply).message).toMatchObject({ message: 'Yes, hello!', sender_type: 'user', author_name: 'Olivia Owner' });

    const seen = next(widget, EVENTS.messageSeen);
    await emitAck(agent, EVENTS.messageSeen, { visitor_id: visitor.id, last_id: agentAck.data.id });
    expect(await seen).toEqual({ last_id: agentAck.data.id, by: 'agent' });

    // Both paths give the same result: the REST history holds exactly what the sockets carried.
    const history = await call(t.app, 'GET', `/api/vms/messages/${visitor.id}`, { token: owner.token });
    expect(history.body.data.map((m: { id: number }) => m.id)).toEqual([ack.data.id, (await second).message.id, agentAck.data.id]);
  });

  it("pushes each message with the conversation's waiting time as the message left it", async () => {
    const visitor = await buildVisitor(t.app, owner.widgetKey);
    const widget = await widgetSocket(visitor.token);
    const agent = await agentSocket(owner.token);
    const pushOf = (clientId: string) => next(agent, EVENTS.messageCreated, (p) => p.message.client_id === clientId);
    const send = async (s: typeof widget, clientId: string, body: Record<string, unknown>) => {
      const pushed = pushOf(clientId);
      expect((await emitAck(s, EVENTS.messageSend, { ...body, client_id: clientId })).ok).toBe(true);
      return (await pushed) as { message: { created_at: string }; conversation: { waiting_since: string | null } };
    };
    // The first message opens the conversation; the second joins it (one statement).
    const first = await send(widget, 'wait-1', { message: 'Hello?' });
    expect((await send(widget, 'wait-2', { message: 'Anyone?' })).conversation.waiting_since).toBe(first.message.created_at);
    // An answer ends the wait: the consoles' lists learn it from the reply's push, not at their next reload.
    expect((await send(agent, 'wait-3', { visitor_id: visitor.id, message: 'Here!' })).conversation.waiting_since).toBeNull();
    const again = await send(widget, 'wait-4', { message: 'Thanks, one more thing' });
    expect(again.conversation.waiting_since).toBe(again.message.created_at);
    // The same as the list reads from the database.
    const list = await call(t.app, 'GET', '/api/vms/conversations', { token: owner.token });
    expect(list.body.data.find((c: { visitor_id: string }) => c.visitor_id === visitor.id).waiting_since).toBe(again.message.created_at);
  });

  it('answers a retried send with the same stored message, and pushes it once', async () => {
    const visitor = await buildVisitor(t.app, owner.widgetKey);
    const widget = await widgetSocket(visitor.token);
    const agent = await agentSocket(owner.token);
    const pushes: number[] = [];
    agent.on(EVENTS.messageCreated, (p) => p.message.visitor_id === visitor.id && pushes.push(p.message.id));
    const first = await emitAck(widget, EVENTS.messageSend, { message: 'once', client_id: 'retry-1' });
    const again = await emitAck(widget, EVENTS.messageSend, { message: 'once', client_id: 'retry-1' });
    expect(again.data).toEqual(first.data);
    await silence(agent, 'never', 300);
    expect(pushes).toEqual([first.data.id]);
  });

  it("gives a widget's own message to it in the ack only, and to the visitor's other tabs and the console as a push, once each", async () => {
    const visitor = await buildVisitor(t.app, owner.widgetKey);
    const agent = await agentSocket(owner.token);
    const sender = await widgetSocket(visitor.token);
    const otherTab = await widgetSocket(visitor.token);
    const seen = { sender: [] as number[], otherTab: [] as number[], agent: [] as number[] };
    sender.on(EVENTS.messageCreated, (p) => seen.sender.push(p.message.id));
    otherTab.on(EVENTS.messageCreated, (p) => seen.otherTab.push(p.message.id));
    agent.on(EVENTS.messageCreated, (p) => p.message.visitor_id === visitor.id && seen.agent.push(p.message.id));
    const atOtherTab = next(otherTab, EVENTS.messageCreated);
    const ack = await emitAck(sender, EVENTS.messageSend, { message: 'from tab one', client_id: 'tabs-1' });
    expect(ack).toMatchObject({ ok: true, data: { message: 'from tab one', client_id: 'tabs-1', sender_type: 'visitor' } });
    expect((await atOtherTab).message).toEqual(ack.data);
    // A retry of the same client_id is answered from the store and pushes nothing again.
    expect((await emitAck(sender, EVENTS.messageSend, { message: 'from tab one', client_id: 'tabs-1' })).data).toEqual(ack.data);
    // An agent's reply still reaches both tabs.
    const reply = await emitAck(agent, EVENTS.messageSend, { visitor_id: visitor.id, message: 'hi both', client_id: 'tabs-a' });
    await silence(sender, 'never', 300);
    expect(seen).toEqual({ sender: [reply.data.id], otherTab: [ack.data.id, reply.data.id], agent: [ack.data.id, reply.data.id] });
    // The sending tab, alone now, still gets its own messages from their ack.
    otherTab.disconnect();
    const alone = await emitAck(sender, EVENTS.messageSend, { message: 'alone', client_id: 'tabs-2' });
    expect(alone).toMatchObject({ ok: true, data: { message: 'alone' } });
    await silence(sender, 'never', 300);
    expect(seen.sender).toEqual([reply.data.id]);
    expect(seen.agent).toEqual([ack.data.id, reply.data.id, alone.data.id]);
  });

  it('refuses invalid sends in the envelope words, storing nothing', async () => {
    const visitor = await buildVisitor(t.app, owner.widgetKey);
    const widget = await widgetSocket(visitor.token);
    expect(await emitAck(widget, EVENTS.messageSend, { message: '   ', client_id: 'x1' })).toMatchObject({ ok: false, status: 422, message: 'Message or image is required' });
    expect(await emitAck(widget, EVENTS.messageSend, { message: 'hi' })).toMatchObject({ ok: false, status: 422 });
    expect(await emitAck(widget, EVENTS.messageSend, 'junk')).toMatchObject({ ok: false, status: 422 });
    const agent = await agentSocket(owner.token);
    expect(await emitAck(agent, EVENTS.messageSend, { visitor_id: '00000000-0000-4000-8000-000000000000', message: 'hi', client_id: 'x2' })).toMatchObject({ ok: false, status: 404 });
    const msgs = await call(t.app, 'GET', '/api/widget/messages', { token: visitor.token });
    expect(msgs.body.data).toEqual([]);
  });

  it('pushes messages stored through REST too, and only to those who may see them', async () => {
    const agentA = await buildMember(t.app, owner, 'Agent');
    const agentB = await buildMember(t.app, owner, 'Agent');
    const visitor = await buildChattingVisitor(t.app, owner.widgetKey, 'first');
    await assignConversation(t.app, visitor.id, agentA.id);
    const sockA = await agentSocket(agentA.token);
    const sockB = await agentSocket(agentB.token);
    const ownerSock = await agentSocket(owner.token);
    const other = await buildAccount(t.app);
    const stranger = await agentSocket(other.token);

    const toA = next(sockA, EVENTS.messageCreated, (p) => p.message.visitor_id === visitor.id);
    const toOwner = next(ownerSock, EVENTS.messageCreated, (p) => p.message.visitor_id === visitor.id);
    const notB = silence(sockB, EVENTS.messageCreated, 500);
    const notStranger = silence(stranger, EVENTS.messageCreated, 500);
    const res = await call(t.app, 'POST', '/api/widget/messages', { token: visitor.token, body: { message: 'via REST', client_id: 'rest-1' } });
    expect(res.status).toBe(201);
    expect((await toA).message.id).toBe(res.body.data.id);
    expect((await toOwner).message.id).toBe(res.body.data.id);
    await notB;
    await notStranger;
    // Agent B may not type into or send to a conversation assigned to A.
    expect(await emitAck(sockB, EVENTS.messageSend, { visitor_id: visitor.id, message: 'sneaky', client_id: 'b-1' })).toMatchObject({ ok: false, status: 404 });
  });

  it('tells the console when a visitor comes online, changes page and leaves', async () => {
    const visitor = await buildVisitor(t.app, owner.widgetKey, { page_url: 'https://shop.example/' });
    const agent = await agentSocket(owner.token);
    const online = next(agent, EVENTS.visitorOnline, (p) => p.visitor_id === visitor.id);
    const widget = await widgetSocket(visitor.token);
    expect((await online).page_url).toBe('https://shop.example/');
    const page = next(agent, EVENTS.visitorPage, (p) => p.visitor_id === visitor.id);
    await emitAck(widget, EVENTS.visitorPage, { page_url: 'https://shop.example/pricing' });
    expect((await page).page_url).toBe('https://shop.example/pricing');
    const offline = next(agent, EVENTS.visitorOffline, (p) => p.visitor_id === visitor.id);
    widget.close();
    await offline;
  });

  it('closes live sockets at once when their session ends', async () => {
    const login = await call(t.app, 'POST', '/api/vms/login', { body: { email: owner.email, password: owner.password } });
    const sock = await agentSocket(login.body.token);
    const closed = new Promise((r) => sock.once('disconnect', r));
    await call(t.app, 'POST', '/api/vms/logout', { token: login.body.token });
    await closed;
    const member = await buildMember(t.app, owner, 'Agent');
    const memberSock = await agentSocket(member.token);
    const memberClosed = new Promise((r) => memberSock.once('disconnect', r));
    expect((await call(t.app, 'DELETE', `/api/vms/team/${member.id}`, { token: owner.token })).status).toBe(200);
    await memberClosed;
  });

  it("closes a member's live sockets at once when their status changes; they may connect again under the new status", async () => {
    const member = await buildMember(t.app, owner, 'Agent');
    const memberSock = await agentSocket(member.token);
    const ownerSock = await agentSocket(owner.token);
    const closed = new Promise<string>((r) => memberSock.once('disconnect', r));
    const ownerKept = silence(ownerSock, 'disconnect', 500);
    const res = await call(t.app, 'PATCH', `/api/vms/team/${member.id}`, { token: owner.token, body: { status: 'disabled' } });
    expect(res.status).toBe(200);
    expect(await closed).toBe('io server disconnect');
    await ownerKept;
    // Setting the same status again changes nothing, so nothing is closed.
    const again = await agentSocket(member.token);
    const stays = silence(again, 'disconnect', 500);
    expect((await call(t.app, 'PATCH', `/api/vms/team/${member.id}`, { token: owner.token, body: { status: 'disabled' } })).status).toBe(200);
    await stays;
  });

  it('tells widgets whether an agent is online', async () => {
    const acct = await buildAccount(t.app);
    // Registering counts as activity; make the session an hour old so only a live socket counts.
    await t.database.db.update(authTokens).set({ lastUsedAt: new Date(Date.now() - 3_600_000) });
    const visitor = await buildVisitor(t.app, acct.widgetKey);
    const widget = track(connect(t.base, { widget_key: acct.widgetKey, visitor_token: visitor.token }));
    const first = next(widget, EVENTS.agentPresence);
    await connected(widget);
    expect(await first).toEqual({ online: false });
    const up = next(widget, EVENTS.agentPresence);
    const agent = await agentSocket(acct.token);
    expect(await up).toEqual({ online: true });
    // Connecting refreshed nothing older than a minute; age the session again before leaving.
    await t.database.db.update(authTokens).set({ lastUsedAt: new Date(Date.now() - 3_600_000) });
    const down = next(widget, EVENTS.agentPresence);
    agent.close();
    expect(await down).toEqual({ online: false });
  });

  it("keeps the last presence answer when the cluster-wide lookup does not answer in time, so a saturated node's visitors are not told nobody is there", async () => {
    const acct = await buildAccount(t.app);
    await t.database.db.update(authTokens).set({ lastUsedAt: new Date(Date.now() - 3_600_000) });
    const agent = await agentSocket(acct.token);
    await t.database.db.update(authTokens).set({ lastUsedAt: new Date(Date.now() - 3_600_000) });
    forgetPresence(t.app.db, acct.user.account_id);
    expect(await isAgentOnline(t.app.db, acct.user.account_id)).toBe(true);

    // Another node does not answer: the lookup rejects, as Socket.IO's fetchSockets does on its timeout.
    const timedOut = () => ({ fetchSockets: () => Promise.reject(new Error('timeout reached while waiting for fetchSockets response')) });
    const spy = vi.spyOn(t.app.io, 'in').mockImplementation(timedOut as never);
    onTestFinished(() => spy.mockRestore());
    forgetPresence(t.app.db, acct.user.account_id);
    expect(await isAgentOnline(t.app.db, acct.user.account_id)).toBe(true);
    expect(spy).toHaveBeenCalled();

    // An account never looked up has no answer to stand on: nobody counts.
    const other = await buildAccount(t.app);
    await t.database.db.update(authTokens).set({ lastUsedAt: new Date(Date.now() - 3_600_000) });
    forgetPresence(t.app.db, other.user.account_id);
    expect(await isAgentOnline(t.app.db, other.user.account_id)).toBe(false);
    agent.close();
  });
});
