
import { describe, expect, it } from 'vitest';
import { EVENTS, LABEL_COLOR_INVALID, LABEL_NAME_TAKEN, LABEL_UNKNOWN } from '@parley/shared';
import { buildAccount, buildMember, call, insertVisitorWithConversation, type TestOwner } from '../../test/factories.js';
import { assignConversation } from '../../test/chatFactories.js';
import { connect, connected, next, silence, liveTestApp } from '../../test/sockets.js';

const t = liveTestApp();

const createLabel = (token: string, body: unknown) => call(t.app, 'POST', '/api/vms/labels', { token, body });
const setLabels = (token: string, visitorId: string, body: unknown) => call(t.app, 'PUT', `/api/vms/conversations/${visitorId}/labels`, { token, body });
const labelList = async (token: string) => (await call(t.app, 'GET', '/api/vms/labels', { token })).body.data as { id: number; name: string; color: string }[];
const listConversations = (token: string, query = '') => call(t.app, 'GET', `/api/vms/conversations${query}`, { token });

async function twoLabels(owner: TestOwner) {
  const vip = (await createLabel(owner.token, { name: 'VIP', color: '#EAB308' })).body.data;
  const bug = (await createLabel(owner.token, { name: 'bug', color: '#ef4444' })).body.data;
  return { vip, bug };
}

describe('labels', () => {
  it('owner and Admin manage labels; everyone reads them, by name', async () => {
    const owner = await buildAccount(t.app);
    const admin = await buildMember(t.app, owner, 'Admin');
    const agent = await buildMember(t.app, owner, 'Agent');
    const made = await createLabel(owner.token, { name: ' VIP ', color: '#EAB308' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ message: 'success', data: { id: expect.any(Number), name: 'VIP', color: '#eab308' } });
    const bug = await createLabel(admin.token, { name: 'bug', color: '#ef4444' });
    expect(bug.status).toBe(201);
    expect((await labelList(agent.token)).map((l) => l.name)).toEqual(['bug', 'VIP']);
    const renamed = await call(t.app, 'PATCH', `/api/vms/labels/${bug.body.data.id}`, { token: admin.token, body: { name: 'Bug report', color: '#3b82f6' } });
    expect(renamed.body.data).toEqual({ id: bug.body.data.id, name: 'Bug report', color: '#3b82f6' });
    expect((await call(t.app, 'DELETE', `/api/vms/labels/${made.body.data.id}`, { token: owner.token })).status).toBe(200);
    expect(await labelList(owner.token)).toEqual([{ id: bug.body.data.id, name: 'Bug report', color: '#3b82f6' }]);
  });

  it('refuses an Agent label management with 403 and another account with 404', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const other = await buildAccount(t.app);
    const { vip } = await twoLabels(owner);
    expect((await createLabel(agent.token, { name: 'Mine', color: '#ef4444' })).status).toBe(403);
    expect((await call(t.app, 'PATCH', `/api/vms/labels/${vip.id}`, { token: agent.token, body: { name: 'x' } })).status).toBe(403);
    expect((await call(t.app, 'DELETE', `/api/vms/labels/${vip.id}`, { token: agent.token })).status).toBe(403);
    const foreign = await call(t.app, 'PATCH', `/api/vms/labels/${vip.id}`, { token: other.token, body: { name: 'x' } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe('Label not found');
    expect((await call(t.app, 'DELETE', `/api/vms/labels/${vip.id}`, { token: other.token })).status).toBe(404);
    expect(await labelList(other.token)).toEqual([]);
    expect((await labelList(owner.token)).map((l) => l.name)).toEqual(['bug', 'VIP']);
  });

  it('refuses bad label input with field errors, storing nothing', async () => {
    const owner = await buildAccount(t.app);
    await twoLabels(owner);
    const cases: [unknown, Record<string, string[]>][] = [
      [{ color: '#ef4444' }, { name: ['Name is required'] }],
      [{ name: 'x'.repeat(41), color: '#ef4444' }, { name: ['Name must be at most 40 characters'] }],
      [{ name: 'Blue', color: '#123456' }, { color: [LABEL_COLOR_INVALID] }],
      [{ name: 'Blue' }, { color: [LABEL_COLOR_INVALID] }],
      [{ name: 'vip', color: '#ef4444' }, { name: [LABEL_NAME_TAKEN] }],
    ];
    for (const [body, errors] of cases) {
      const res = await createLabel(owner.token, body);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual(errors);
      expect(res.body.message).toBe(Object.values(errors)[0]![0]);
    }
    expect((await labelList(owner.token)).map((l) => l.name)).toEqual(['bug', 'VIP']);
  });
});

describe('PUT /api/vms/conversations/:visitorId/labels and the list filter', () => {
  it('labels a conversation; the list shows the labels and filters by label', async () => {
    const owner = await buildAccount(t.app);
    const { vip, bug } = await twoLabels(owner);
    const a = await insertVisitorWithConversation(t.app, owner.user.account_id, { name: 'Ann' });
    const b = await insertVisitorWithConversation(t.app, owner.user.account_id, { name: 'Ben' });

    const res = await setLabels(owner.token, a.visitorId, { label_ids: [vip.id, bug.id, vip.id] });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ visitor_id: a.visitorId, labels: [bug, vip] });
    await setLabels(owner.token, b.visitorId, { label_ids: [bug.id] });

    const all = await listConversations(owner.token);
    const byName = Object.fromEntries(all.body.data.map((c: { visitor_name: string; labels: unknown }) => [c.visitor_name, c.labels]));
    expect(byName).toEqual({ Ann: [bug, vip], Ben: [bug] });
    expect((await listConversations(owner.token, `?label=${vip.id}`)).body.data.map((c: { visitor_name: string }) => c.visitor_name)).toEqual(['Ann']);
    expect((await listConversations(owner.token, `?label=${bug.id}`)).body.data).toHaveLength(2);

    // Replacing the set removes what is not in it; deleting a label takes it off every conversation.
    await setLabels(owner.token, a.visitorId, { label_ids: [vip.id] });
    expect((await listConversations(owner.token, `?label=${bug.id}`)).body.data.map((c: { visitor_name: string }) => c.visitor_name)).toEqual(['Ben']);
    await call(t.app, 'DELETE', `/api/vms/labels/${bug.id}`, { token: owner.token });
    const after = await listConversations(owner.token);
    expect(Object.fromEntries(after.body.data.map((c: { visitor_name: string; labels: unknown }) => [c.visitor_name, c.labels]))).toEqual({ Ann: [vip], Ben: [] });
    expect((await setLabels(owner.token, a.visitorId, { label_ids: [] })).body.data.labels).toEqual([]);
  });

  it('filters a paged list by label with its total, and a label change shows in changes_since', async () => {
    const owner = await buildAccount(t.app);
    const { vip } = await twoLabels(owner);
    const ids: string[] = [];
    for (const name of ['P1', 'P2', 'P3']) ids.push((await insertVisitorWithConversation(t.app, owner.user.account_id, { name })).visitorId);
    await setLabels(owner.token, ids[0]!, { label_ids: [vip.id] });
    await setLabels(owner.token, ids[2]!, { label_ids: [vip.id] });
    const first = await listConversations(owner.token, `?limit=1&label=${vip.id}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 2, has_more: true });
    expect(first.body.data[0].labels).toEqual([vip]);
    const second = await listConversations(owner.token, `?limit=1&label=${vip.id}&cursor=${first.body.next_cursor}`);
    expect([first.body.data[0].visitor_name, second.body.data[0].visitor_name].sort()).toEqual(['P1', 'P3']);
    expect(second.body.has_more).toBe(false);

    const cursor = first.body.changes_cursor;
    await setLabels(owner.token, ids[1]!, { label_ids: [vip.id] });
    const changes = await listConversations(owner.token, `?changes_since=${cursor}`);
    expect(changes.body.data.map((c: { visitor_name: string; labels: unknown }) => [c.visitor_name, c.labels])).toEqual([['P2', [vip]]]);
    const cursor2 = changes.body.changes_cursor;
    await call(t.app, 'DELETE', `/api/vms/labels/${vip.id}`, { token: owner.token });
    const afterDelete = await listConversations(owner.token, `?changes_since=${cursor2}`);
    expect(afterDelete.body.data.map((c: { visitor_name: string; labels: unknown }) => [c.visitor_name, c.labels]).sort()).toEqual([
      ['P1', []],
      ['P2', []],
      ['P3', []],
    ]);
  });

  it('lets anyone who may see a conversation label it; an Agent not others, another account 404', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const otherAgent = await buildMember(t.app, owner, 'Agent');
    const stranger = await buildAccount(t.app);
    const { vip } = await twoLabels(owner);
    const c = await insertVisitorWithConversation(t.app, owner.user.account_id, { name: 'Cid' });
    expect((await setLabels(agent.token, c.visitorId, { label_ids: [vip.id] })).status).toBe(200); // unassigned: visible
    await assignConversation(t.app, c.visitorId, otherAgent.id);
    expect((await setLabels(agent.token, c.visitorId, { label_ids: [] })).status).toBe(404);
    expect((await setLabels(otherAgent.token, c.visitorId, { label_ids: [] })).status).toBe(200);
    expect((await setLabels(stranger.token, c.visitorId, { label_ids: [] })).status).toBe(404);
    // An Agent only lists what they may see, labels included.
    expect((await listConversations(agent.token, `?label=${vip.id}`)).body.data).toEqual([]);
  });

  it("refuses another account's label, bad ids and a bad filter in the envelope, changing nothing", async () => {
    const owner = await buildAccount(t.app);
    const other = await buildAccount(t.app);
    const { vip } = await twoLabels(owner);
    const theirs = (await createLabel(other.token, { name: 'Theirs', color: '#22c55e' })).body.data;
    const c = await insertVisitorWithConversation(t.app, owner.user.account_id);
    await setLabels(owner.token, c.visitorId, { label_ids: [vip.id] });
    const cases: [unknown, string][] = [
      [{ label_ids: [theirs.id] }, LABEL_UNKNOWN],
      [{ label_ids: [vip.id, 2_000_000_000] }, LABEL_UNKNOWN],
      [{ label_ids: ['x'] }, 'label_ids must be a list of label ids'],
      [{ label_ids: 'x' }, 'label_ids must be a list of label ids'],
      [{}, 'label_ids must be a list of label ids'],
      [{ label_ids: Array.from({ length: 21 }, (_, i) => i + 1) }, 'A conversation can have at most 20 labels'],
    ];
    for (const [body, message] of cases) {
      const res = await setLabels(owner.token, c.visitorId, body);
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(message);
      expect(res.body.error).toBe(message);
    }
    expect((await listConversations(owner.token)).body.data[0].labels).toEqual([vip]);
    for (const q of ['?label=abc', '?label=0', '?label=-1']) {
      const res = await listConversations(owner.token, q);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ label: ['label must be a label id'] });
    }
  });

  it('pushes the new labels to the consoles that may see the conversation', async () => {
    const owner = await buildAccount(t.app);
    const agent = await buildMember(t.app, owner, 'Agent');
    const otherAgent = await buildMember(t.app, owner, 'Agent');
    const { vip } = await twoLabels(owner);
    const c = await insertVisitorWithConversation(t.app, owner.user.account_id);
    await assignConversation(t.app, c.visitorId, agent.id);
    const ownerSocket = connect(t.base, { token: owner.token });
    const otherSocket = connect(t.base, { token: otherAgent.token });
    t.track(ownerSocket);
    t.track(otherSocket);
    await Promise.all([connected(ownerSocket), connected(otherSocket)]);
    const heard = next(ownerSocket, EVENTS.conversationUpdated);
    const quiet = silence(otherSocket, EVENTS.conversationUpdated);
    await setLabels(agent.token, c.visitorId, { label_ids: [vip.id] });
    const [p] = await Promise.all([heard, quiet]);
    expect(p.conversation).toMatchObject({ visitor_id: c.visitorId, labels: [vip] });
  });
});
