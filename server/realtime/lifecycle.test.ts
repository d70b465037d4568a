import type { Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS } from '@parley/shared';
import { createTestApp, type TestApp } from '../test/harness.js';
import { buildAccount, buildMember, call, type TestOwner } from '../test/factories.js';
import { assignConversation, buildChattingVisitor } from '../test/chatFactories.js';
import { connect, connected, listen, next, silence } from '../test/sockets.js';

let t: TestApp;
let base: string;
let owner: TestOwner;
const open: Socket[] = [];
const socketOf = async (auth: Record<string, string>) => {
  const s = connect(base, auth);
  open.push(s);
  await connected(s);
  return s;
};

beforeAll(async () => {
  t = await createTestApp();
  base = await listen(t.app);
  owner = await buildAccount(t.app, { name: 'Olivia' });
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});
afterAll(() => t.close());

const forVisitor = (id: string) => (p: { conversation: { visitor_id: string } }) => p.conversation.visitor_id === id;

describe('lifecycle pushes', () => {
  it('a reassignment reaches the old and the new assignee; the system line reaches consoles only', async () => {
    const bob = await buildMember(t.app, owner, 'Agent', { name: 'Bob' });
    const cleo = await buildMember(t.app, owner, 'Agent', { name: 'Cleo' });
    const v = await buildChattingVisitor(t.app, owner.widgetKey, 'hello');
    await assignConversation(t.app, v.id, bob.id);
    const [bobSocket, cleoSocket, ownerSocket, widget] = await Promise.all([
      socketOf({ token: bob.token }),
      socketOf({ token: cleo.token }),
      socketOf({ token: owner.token }),
      socketOf({ widget_key: owner.widgetKey, visitor_token: v.token }),
    ]);

    const bobUpdate = next(bobSocket, EVENTS.conversationUpdated, forVisitor(v.id));
    const cleoUpdate = next(cleoSocket, EVENTS.conversationUpdated, forVisitor(v.id));
    const cleoLine = next(cleoSocket, EVENTS.messageCreated, (p: { message: { visitor_id: string; sender_type: string } }) => p.message.visitor_id === v.id);
    const ownerLine = next(ownerSocket, EVENTS.messageCreated, (p: { message: { visitor_id: string; sender_type: string } }) => p.message.visitor_id === v.id);
    const widgetQuiet = silence(widget, EVENTS.messageCreated, 800);
    const res = await call(t.app, 'POST', `/api/vms/conversations/${v.id}/assign`, { token: owner.token, body: { user_id: cleo.id } });
    expect(res.status).toBe(200);

    // Bob learns the conversation left him (the old audience), Cleo that it is hers.
    expect((await bobUpdate).conversation).toMatchObject({ assignee_id: cleo.id, assignee_name: 'Cleo' });
    expect((await cleoUpdate).conversation).toMatchObject({ assignee_id: cleo.id, assignee_name: 'Cleo' });
    expect((await cleoLine).message).toMatchObject({ sender_type: 'system', message: 'Olivia assigned the conversation to Cleo' });
    expect((await ownerLine).message.sender_type).toBe('system');
    await widgetQuiet;
  });

  it('status changes and a visitor reopening push to the audience, never a system line to the widget', async () => {
    const v = await buildChattingVisitor(t.app, owner.widgetKey, 'hello');
    const agent = await buildMember(t.app, owner, 'Agent');
    const [agentSocket, widget] = await Promise.all([socketOf({ token: agent.token }), socketOf({ widget_key: owner.widgetKey, visitor_token: v.token })]);
    const widgetMessages: { sender_type: string; message: string }[] = [];
    widget.on(EVENTS.messageCreated, (p: { message: { sender_type: string; message: string } }) => widgetMessages.push(p.message));

    const resolved = next(agentSocket, EVENTS.conversationUpdated, forVisitor(v.id));
    await call(t.app, 'POST', `/api/vms/conversations/${v.id}/status`, { token: owner.token, body: { status: 'resolved' } });
    expect((await resolved).conversation).toMatchObject({ status: 'resolved', resolved_at: expect.any(String) });

    const reopened = next(agentSocket, EVENTS.conversationUpdated, (p: { conversation: { visitor_id: string; status: string } }) => p.conversation.visitor_id === v.id && p.conversation.status === 'open');
    const line = next(agentSocket, EVENTS.messageCreated, (p: { message: { sender_type: string; message: string } }) => p.message.sender_type === 'system');
    const own = next(widget, EVENTS.messageCreated, (p: { message: { message: string } }) => p.message.message === 'back again');
    await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'back again' } });
    await reopened;
    expect((await line).message.message).toBe('The conversation reopened');
    await own;
    await silence(widget, EVENTS.messageCreated, 500);
    expect(widgetMessages.map((m) => m.sender_type)).toEqual(['visitor']);
  });
});
