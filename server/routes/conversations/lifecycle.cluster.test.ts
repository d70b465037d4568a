
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS } from '@parley/shared';
import { conversations } from '../../db/schema.js';
import { wakeConversation } from '../../jobs/lifecycle.js';
import type { JobContext } from '../../jobs/types.js';
import { startCluster, type TestCluster } from '../../test/cluster.js';
import { buildAccount, buildMember, call } from '../../test/factories.js';
import { buildChattingVisitor } from '../../test/chatFactories.js';
import { connect, connected, next, silence, socketTracker } from '../../test/sockets.js';

// Lifecycle changes made on one node reach the consoles connected to another (Redis adapter):
// status, assignment (to those who see it after, and those who saw it before), a snooze's wake-up.
let cluster: TestCluster;
const track = socketTracker();
beforeAll(async () => {
  cluster = await startCluster({ nodes: 2 });
}, 60_000);
afterAll(() => cluster.close());

type Updated = { conversation: { visitor_id: string; status: string; assignee_id: number | null } };
type Created = { message: { visitor_id: string; sender_type: string; message: string } };

describe('lifecycle across two nodes', () => {
  it('pushes status and assignment changes made on node A to consoles on node B, never the system lines to the visitor', async () => {
    const [a, b] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    const owner = await buildAccount(a.app);
    const agent = await buildMember(a.app, owner, 'Agent', { name: 'Agent Ann' });
    const colleague = await buildMember(a.app, owner, 'Agent', { name: 'Agent Bob' });
    const v = await buildChattingVisitor(a.app, owner.widgetKey);

    const ownerB = track(connect(b.base, { token: owner.token }));
    const agentB = track(connect(b.base, { token: agent.token }));
    const colleagueB = track(connect(b.base, { token: colleague.token }));
    const widgetB = track(connect(b.base, { widget_key: owner.widgetKey, visitor_token: v.token }));
    await Promise.all([ownerB, agentB, colleagueB, widgetB].map(connected));
    const mine = (p: Updated) => p.conversation.visitor_id === v.id;

    // Resolve on A: the owner and the Agent (unassigned: they see it) on B get it, with the line.
    const resolvedOwner = next<Updated>(ownerB, EVENTS.conversationUpdated, mine);
    const resolvedAgent = next<Updated>(agentB, EVENTS.conversationUpdated, mine);
    const line = next<Created>(ownerB, EVENTS.messageCreated, (p) => p.message.visitor_id === v.id && p.message.sender_type === 'system');
    const visitorQuiet = silence(widgetB, EVENTS.messageCreated, 1500);
    expect((await call(a.app, 'POST', `/api/vms/conversations/${v.id}/status`, { token: owner.token, body: { status: 'resolved' } })).status).toBe(200);
    expect((await resolvedOwner).conversation.status).toBe('resolved');
    expect((await resolvedAgent).conversation.status).toBe('resolved');
    expect((await line).message.message).toMatch(/resolved the conversation$/);
    await visitorQuiet;

    // Assign to the colleague on A: both Agents on B learn it (one gains it, one loses it).
    const toColleague = next<Updated>(colleagueB, EVENTS.conversationUpdated, (p) => mine(p) && p.conversation.assignee_id === colleague.id);
    const leftAgent = next<Updated>(agentB, EVENTS.conversationUpdated, (p) => mine(p) && p.conversation.assignee_id === colleague.id);
    expect((await call(a.app, 'POST', `/api/vms/conversations/${v.id}/assign`, { token: owner.token, body: { user_id: colleague.id } })).status).toBe(200);
    await Promise.all([toColleague, leftAgent]);
    // From now on the first Agent no longer hears about it.
    const agentQuiet = silence(agentB, EVENTS.conversationUpdated, 1500);
    const reopened = next<Updated>(colleagueB, EVENTS.conversationUpdated, (p) => mine(p) && p.conversation.status === 'open');
    expect((await call(a.app, 'POST', `/api/vms/conversations/${v.id}/status`, { token: colleague.token, body: { status: 'open' } })).status).toBe(200);
    await reopened;
    await agentQuiet;
  }, 30_000);

  it('a snooze that wakes on node A reopens the conversation live on node B', async () => {
    const [a, b] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    const owner = await buildAccount(a.app);
    const v = await buildChattingVisitor(a.app, owner.widgetKey);
    const until = new Date(Date.now() + 3_600_000);
    await call(b.app, 'POST', `/api/vms/conversations/${v.id}/status`, { token: owner.token, body: { status: 'pending', snoozed_until: until.toISOString() } });
    const ownerB = track(connect(b.base, { token: owner.token }));
    await connected(ownerB);
    const woke = next<Updated>(ownerB, EVENTS.conversationUpdated, (p) => p.conversation.visitor_id === v.id && p.conversation.status === 'open');
    const line = next<Created>(ownerB, EVENTS.messageCreated, (p) => p.message.visitor_id === v.id && p.message.message === 'The conversation reopened');

    const [c] = await a.database.db.select().from(conversations).where(eq(conversations.visitorId, v.id));
    const ctx = { db: a.database.db, events: a.app.events, log: a.app.log } as unknown as JobContext;
    await wakeConversation({ accountId: c!.accountId, conversationId: c!.id }, ctx, new Date(until.getTime() + 1000));
    await Promise.all([woke, line]);
  }, 30_000);
});
