import type { Socket as ServerSocket } from 'socket.io';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENTS } from '@parley/shared';
import { buildAccount, call, type TestOwner } from '../test/factories.js';
import { buildVisitor } from '../test/chatFactories.js';
import { connect, connected, emitAck, next, liveTestApp } from '../test/sockets.js';

// Issue 15: memory per idle widget socket. What a socket keeps beyond Socket.IO's own is its
// data (ids, flags), its rooms and listeners shared with every other widget socket; the
// visitor's row is read by the first event that needs it.

const t = liveTestApp();
const { track } = t;
let owner: TestOwner;

beforeAll(async () => {
  owner = await buildAccount(t.app);
});

const widgetSocket = async (visitorToken: string) => {
  const s = track(connect(t.base, { widget_key: owner.widgetKey, visitor_token: visitorToken }));
  await connected(s);
  return s;
};
/** The server's side of a visitor's widget socket. */
const serverSocket = (visitorId: string): ServerSocket => {
  const found = [...t.app.io.of('/').sockets.values()].find((s) => (s.data as { visitorId?: string }).visitorId === visitorId);
  if (!found) throw new Error(`no socket of visitor ${visitorId}`);
  return found;
};

describe('an idle widget socket', () => {
  it('keeps no listener, visitor row or credentials of its own', async () => {
    const a = await buildVisitor(t.app, owner.widgetKey, { name: 'Ida' });
    const b = await buildVisitor(t.app, owner.widgetKey, { name: 'Bo' });
    await Promise.all([widgetSocket(a.token), widgetSocket(b.token)]);
    const [x, y] = [serverSocket(a.id), serverSocket(b.id)];
    for (const event of ['disconnect', EVENTS.messageSend, EVENTS.typing, EVENTS.messageSeen, EVENTS.visitorPage]) {
      const mine = x.listeners(event);
      const theirs = y.listeners(event);
      expect(mine.length, event).toBeGreaterThan(0);
      // The same functions: no closure per socket.
      expect(
        mine.every((listener, i) => listener === theirs[i]),
        event,
      ).toBe(true);
    }
    expect(x.data).toMatchObject({ kind: 'widget', visitorId: a.id, visitor: undefined, chatting: false });
    // The visitor token is not kept once checked (nor handed to other nodes with the socket).
    expect(JSON.stringify(x.handshake)).not.toContain(a.token);
  });

  it("reads the visitor's row on its first send: changes made since it connected count", async () => {
    const visitor = await buildVisitor(t.app, owner.widgetKey, { name: 'Ida' });
    const widget = await widgetSocket(visitor.token);
    const agent = track(connect(t.base, { token: owner.token }));
    await connected(agent);
    // The visitor fills in the form (REST) while the socket is open.
    const res = await call(t.app, 'PATCH', '/api/widget/visitor', { token: visitor.token, body: { name: 'Ida Novak' } });
    expect(res.status).toBe(200);
    const pushed = next(agent, EVENTS.messageCreated, (p) => p.message.visitor_id === visitor.id);
    expect((await emitAck(widget, EVENTS.messageSend, { message: 'Hello', client_id: 'idle-1' })).ok).toBe(true);
    expect((await pushed).conversation.visitor_name).toBe('Ida Novak');
    // Kept from then on.
    expect(serverSocket(visitor.id).data).toMatchObject({ chatting: true, visitor: { id: visitor.id, name: 'Ida Novak' } });
  });
});
