import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS } from '@parley/shared';
import { startCluster, type TestCluster } from '../test/cluster.js';
import { buildAccount, buildMember, call, type TestOwner } from '../test/factories.js';
import { buildChattingVisitor, buildVisitor } from '../test/chatFactories.js';
import { connect, connected, emitAck, next, silence, socketTracker } from '../test/sockets.js';
import { visitorSockets } from './visitorPresence.js';

/**
 * Issue 15, the real-time path's cost, across two nodes sharing PostgreSQL and a private Redis:
 * a message is one publish, a widget's audience is kept on its node and follows changes made on
 * the other node, and visitor presence is a counter (no cluster-wide socket lookups).
 */

let cluster: TestCluster;
let owner: TestOwner;
const track = socketTracker();
const A = () => cluster.nodes[0]!;
const B = () => cluster.nodes[1]!;
const socketOn = async (base: string, auth: Record<string, string>) => {
  const s = track(connect(base, auth));
  await connected(s);
  return s;
};

beforeAll(async () => {
  cluster = await startCluster();
  owner = await buildAccount(A().app, { name: 'Olivia' });
});
afterAll(() => cluster.close());

/** Counts what the nodes publish on the Socket.IO channels of the private Redis. */
async function publishCounter() {
  const sub = createClient({ url: cluster.redis!.url });
  await sub.connect();
  let n = 0;
  await sub.pSubscribe('parley:io*', () => n++);
  return {
    count: () => n,
    close: () => sub.quit(),
  };
}

describe('the real-time path across two nodes', () => {
  it('a stored message costs one publish, and reaches the agent on the other node and the visitor on both', async () => {
    const v = await buildChattingVisitor(A().app, owner.widgetKey, 'first');
    const agent = await socketOn(B().base, { token: owner.token });
    const onA = await socketOn(A().base, { widget_key: owner.widgetKey, visitor_token: v.token });
    const onB = await socketOn(B().base, { widget_key: owner.widgetKey, visitor_token: v.token });
    await new Promise((r) => setTimeout(r, 300)); // the connect-time pushes (visitor online) are over
    const counter = await publishCounter();
    try {
      const atAgent = next(agent, EVENTS.messageCreated, (p: { message: { message: string }; conversation?: unknown }) => p.message.message === 'second');
      const atOtherTab = next(onB, EVENTS.messageCreated, (p: { message: { message: string } }) => p.message.message === 'second');
      const ack = await emitAck(onA, EVENTS.messageSend, { message: 'second', client_id: 'pub-count-1' });
      expect(ack.ok).toBe(true);
      const pushed = await atAgent;
      expect(pushed.conversation).toMatchObject({ visitor_id: v.id, last_message: 'second' });
      // The visitor's copy carries no conversation (assignee, counts stay with the team).
      expect(await atOtherTab).not.toHaveProperty('conversation');
      await new Promise((r) => setTimeout(r, 300));
      expect(counter.count()).toBe(1);
    } finally {
      await counter.close();
    }
  });

  it("a widget's typing follows an assignment made on the other node, without reading the conversation again", async () => {
    const bob = await buildMember(A().app, owner, 'Agent', { name: 'Bob' });
    const cleo = await buildMember(A().app, owner, 'Agent', { name: 'Cleo' });
    const v = await buildChattingVisitor(A().app, owner.widgetKey, 'hello');
    const widget = await socketOn(A().base, { widget_key: owner.widgetKey, visitor_token: v.token });
    const [bobSocket, cleoSocket] = await Promise.all([socketOn(B().base, { token: bob.token }), socketOn(B().base, { token: cleo.token })]);

    // Unassigned: every Agent hears the visitor type.
    const bobHears = next(bobSocket, EVENTS.typing, (p: { visitor_id: string }) => p.visitor_id === v.id);
    const cleoHears = next(cleoSocket, EVENTS.typing, (p: { visitor_id: string }) => p.visitor_id === v.id);
    widget.emit(EVENTS.typing, { typing: true });
    await Promise.all([bobHears, cleoHears]);

    // Assigned to Cleo through node B: node A learns it from the push, and Bob no longer hears.
    const cleoUpdated = next(cleoSocket, EVENTS.conversationUpdated, (p: { conversation: { visitor_id: string } }) => p.conversation.visitor_id === v.id);
    const res = await call(B().app, 'POST', `/api/vms/conversations/${v.id}/assign`, { token: owner.token, body: { user_id: cleo.id } });
    expect(res.status).toBe(200);
    await cleoUpdated;
    await new Promise((r) => setTimeout(r, 200));
    expect(visitorSockets(A().app.io).audience(v.id)).toContain(`user:${cleo.id}`);
    const cleoHearsAgain = next(cleoSocket, EVENTS.typing, (p: { visitor_id: string }) => p.visitor_id === v.id);
    const bobQuiet = silence(bobSocket, EVENTS.typing, 600);
    widget.emit(EVENTS.typing, { typing: false });
    await cleoHearsAgain;
    await bobQuiet;
  });

  it('a visitor with tabs on both nodes is offline only when the last tab closes, whichever node it was on', async () => {
    const v = await buildVisitor(A().app, owner.widgetKey);
    const agent = await socketOn(A().base, { token: owner.token });
    const online = next(agent, EVENTS.visitorOnline, (p: { visitor_id: string }) => p.visitor_id === v.id);
    const tabA = await socketOn(A().base, { widget_key: owner.widgetKey, visitor_token: v.token });
    await online;
    const tabB = await socketOn(B().base, { widget_key: owner.widgetKey, visitor_token: v.token });
    expect(visitorSockets(A().app.io).localSockets(v.id)).toBe(1);
    expect(visitorSockets(B().app.io).localSockets(v.id)).toBe(1);

    const notYet = silence(agent, EVENTS.visitorOffline, 700);
    tabA.close();
    await notYet;
    expect(await visitorSockets(A().app.io).online(v.id)).toBe(true);

    const offline = next(agent, EVENTS.visitorOffline, (p: { visitor_id: string }) => p.visitor_id === v.id);
    tabB.close();
    await offline;
    expect(await visitorSockets(A().app.io).online(v.id)).toBe(false);
  });
});
