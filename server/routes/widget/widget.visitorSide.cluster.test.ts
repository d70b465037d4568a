import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_TYPES, EVENTS, RATING_ALREADY_GIVEN, TRIGGER_ALREADY_SHOWN, VISITOR_SIDE_EVENTS } from '@parley/shared';
import { proactiveFires, ratings, transcriptRequests } from '../../db/schema.js';
import { startCluster, type ClusterNode, type TestCluster } from '../../test/cluster.js';
import { buildAccount, call, type TestOwner } from '../../test/factories.js';
import { buildChattingVisitor, buildVisitor, type FilePart, postForm, type TestVisitor } from '../../test/chatFactories.js';
import { DOCX, PDF } from '../../test/documents.js';
import { sleep, startSmtp, type TestSmtp } from '../../test/jobs.js';
import { connect, connected, next, silence, socketTracker } from '../../test/sockets.js';

// Issue 13, "all of the above works across two nodes": the visitor's side (ratings, transcripts,
// proactive triggers, documents) with the visitor on one node and the team on the other, both
// nodes on one PostgreSQL database and one Redis (the adapter, the jobs' queue), both running jobs.
let cluster: TestCluster;
let smtp: TestSmtp;
let a: ClusterNode;
let b: ClusterNode;
const track = socketTracker();
beforeAll(async () => {
  smtp = await startSmtp();
  cluster = await startCluster({ nodes: 2, env: { SMTP_URL: smtp.url } });
  [a, b] = cluster.nodes as [ClusterNode, ClusterNode];
}, 60_000);
afterAll(async () => {
  await cluster?.close();
  await smtp?.close();
});

type Pushed = { message: { id: number; visitor_id: string; sender_type: string; message: string; file_path: string; file_name?: string; file_type?: string; file_size?: number } };

const widgetSocket = (node: ClusterNode, owner: TestOwner, v: TestVisitor) => track(connect(node.base, { widget_key: owner.widgetKey, visitor_token: v.token }));
const reply = (node: ClusterNode, owner: TestOwner, v: TestVisitor, text: string) => postForm(node.app, '/api/vms/messages', owner.token, { visitor_id: v.id, message: text });
const resolve = (node: ClusterNode, owner: TestOwner, v: TestVisitor) =>
  call(node.app, 'POST', `/api/vms/conversations/${v.id}/status`, { token: owner.token, body: { status: 'resolved' } });
const docPart = (bytes: Buffer, filename: string): FilePart => ({ field: 'file', filename, contentType: 'application/octet-stream', bytes });

describe('the visitor side across two nodes', () => {
  it('a resolve on node A asks the visitor on node B for a rating; the rating is taken once, whichever node each try reaches', async () => {
    const owner = await buildAccount(a.app, { name: 'Nina Node' });
    const v = await buildChattingVisitor(a.app, owner.widgetKey, 'Is it in stock?', 'Rhea');
    const widget = widgetSocket(b, owner, v);
    await connected(widget);

    // Not due before anyone answered: no survey push, and B says so.
    expect((await call(b.app, 'GET', '/api/widget/rating', { token: v.token })).body.data.due).toBe(false);
    const answered = next<Pushed>(widget, EVENTS.messageCreated, (p) => p.message.sender_type === 'user');
    expect((await reply(a, owner, v, 'Yes, ships today')).status).toBe(201);
    expect((await answered).message.message).toBe('Yes, ships today');

    const asked = next<{ stretch: string }>(widget, VISITOR_SIDE_EVENTS.ratingRequested);
    expect((await resolve(a, owner, v)).status).toBe(200);
    const { stretch } = await asked;
    const state = await call(b.app, 'GET', '/api/widget/rating', { token: v.token });
    expect(state.body.data).toMatchObject({ due: true, stretch });

    // Two tabs on two nodes send the survey at once: one rating is stored, the other is refused.
    const tries = await Promise.all([
      call(a.app, 'POST', '/api/widget/rating', { token: v.token, body: { score: 5, comment: 'Fast' } }),
      call(b.app, 'POST', '/api/widget/rating', { token: v.token, body: { score: 4 } }),
    ]);
    expect(tries.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(tries.find((r) => r.status === 409)!.body.message).toBe(RATING_ALREADY_GIVEN);
    const stored = await a.database.db.select().from(ratings).where(eq(ratings.accountId, owner.user.account_id));
    expect(stored).toHaveLength(1);
    // Neither node asks again for this stretch: a later change of the resolved conversation on A
    // (an assignment, with its line) brings no second survey to B.
    for (const node of [a, b]) expect((await call(node.app, 'GET', '/api/widget/rating', { token: v.token })).body.data.due).toBe(false);
    const quiet = silence(widget, VISITOR_SIDE_EVENTS.ratingRequested, 1500);
    expect((await call(a.app, 'POST', `/api/vms/conversations/${v.id}/assign`, { token: owner.token, body: { user_id: owner.user.id } })).status).toBe(200);
    await quiet;
    // Reopened and resolved again on A: a new stretch, asked again on B, with its own stretch.
    const reopenedAsk = next<{ stretch: string }>(widget, VISITOR_SIDE_EVENTS.ratingRequested);
    expect((await call(a.app, 'POST', `/api/vms/conversations/${v.id}/status`, { token: owner.token, body: { status: 'open' } })).status).toBe(200);
    expect((await resolve(a, owner, v)).status).toBe(200);
    expect((await reopenedAsk).stretch).not.toBe(stretch);

    // Both nodes' consoles see it in the averages.
    for (const node of [a, b]) {
      const summary = await call(node.app, 'GET', '/api/vms/ratings/summary?range=24h', { token: owner.token });
      expect(summary.body.data).toMatchObject({ count: 1, average: stored[0]!.score });
    }
  }, 30_000);

  it('a transcript asked on node B is emailed once when node A resolves; asked on A after the resolve, it goes at once', async () => {
    const owner = await buildAccount(a.app, { name: 'Tom Team' });
    const email = `rhea-${Date.now()}@example.com`;
    const v = await buildVisitor(b.app, owner.widgetKey, { name: 'Rhea', email });
    expect((await call(b.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'Where is parcel 7?' } })).status).toBe(201);
    expect((await reply(a, owner, v, 'On its way, arriving Friday.')).status).toBe(201);
    const mails = () => smtp.mails.filter((m) => m.to.includes(email));

    const asked = await call(b.app, 'POST', '/api/widget/transcript', { token: v.token });
    expect(asked.body).toEqual({ message: 'success', data: { status: 'scheduled' } });
    expect((await resolve(a, owner, v)).status).toBe(200);
    const until = Date.now() + 20_000;
    while (mails().length < 1) {
      if (Date.now() > until) throw new Error('no transcript email');
      await sleep(50);
    }
    // Both nodes run jobs and relays: still one email a while later, and the request is used up.
    await sleep(2500);
    expect(mails()).toHaveLength(1);
    const text = mails()[0]!.text.replace(/\r\n/g, '\n');
    expect(text).toContain('Rhea:\nWhere is parcel 7?');
    expect(text).toContain('Tom Team:\nOn its way, arriving Friday.');
    expect(await a.database.db.select().from(transcriptRequests).where(eq(transcriptRequests.accountId, owner.user.account_id))).toEqual([]);

    // The conversation is resolved now: asked on the other node, the transcript is sent at once, once.
    const now = await call(a.app, 'POST', '/api/widget/transcript', { token: v.token });
    expect(now.body).toEqual({ message: 'success', data: { status: 'sent' } });
    const later = Date.now() + 20_000;
    while (mails().length < 2) {
      if (Date.now() > later) throw new Error('no second transcript email');
      await sleep(50);
    }
    await sleep(1500);
    expect(mails()).toHaveLength(2);
  }, 60_000);

  it("a proactive trigger fires at most once for a visitor whose two tabs are on different nodes", async () => {
    const owner = await buildAccount(a.app);
    const made = await call(a.app, 'POST', '/api/vms/triggers', {
      token: owner.token,
      body: { name: 'Pricing help', url_pattern: '/pricing*', seconds_on_page: 0, nth_page: 0, returning_only: false, message: 'Questions about plans?', sender_name: 'Sam', open_panel: false },
    });
    expect(made.status).toBe(201);
    const id = made.body.data.id as number;
    const v = await buildVisitor(a.app, owner.widgetKey);
    const list = (node: ClusterNode) => call(node.app, 'GET', `/api/widget/triggers?unique_code=${owner.widgetKey}`, { token: v.token });
    for (const node of [a, b]) expect((await list(node)).body.data.map((t: { id: number }) => t.id)).toEqual([id]);

    // Both tabs find it due at once and record the showing, each on its node: one shows it.
    const fires = await Promise.all([a, b].map((node) => call(node.app, 'POST', `/api/widget/triggers/${id}/fire`, { token: v.token })));
    expect(fires.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(fires.find((r) => r.status === 409)!.body.message).toBe(TRIGGER_ALREADY_SHOWN);
    const rows = await b.database.db.select().from(proactiveFires).where(and(eq(proactiveFires.triggerId, id), eq(proactiveFires.visitorId, v.id)));
    expect(rows).toHaveLength(1);
    // Neither node offers it to this visitor again today; another visitor still gets it.
    for (const node of [a, b]) expect((await list(node)).body.data).toEqual([]);
    const w = await buildVisitor(b.app, owner.widgetKey);
    expect((await call(b.app, 'POST', `/api/widget/triggers/${id}/fire`, { token: w.token })).status).toBe(201);
  });

  it("an agent on node A starts a chat with a visitor browsing on node B: it shows in the widget live", async () => {
    const owner = await buildAccount(a.app);
    const v = await buildVisitor(b.app, owner.widgetKey, { name: 'Bea' });
    const widget = widgetSocket(b, owner, v);
    await connected(widget);
    const arrives = next<Pushed>(widget, EVENTS.messageCreated, (p) => p.message.message === 'Can I help you find something?');
    expect((await reply(a, owner, v, 'Can I help you find something?')).status).toBe(201);
    expect((await arrives).message).toMatchObject({ visitor_id: v.id, sender_type: 'user' });
  });

  it('a document sent by an agent on node A reaches the visitor on node B, and one the visitor sends on B reaches the agent on A; each node serves both', async () => {
    const owner = await buildAccount(a.app);
    const v = await buildChattingVisitor(b.app, owner.widgetKey, 'Can you send the quote?');
    const agent = track(connect(a.base, { token: owner.token }));
    const widget = widgetSocket(b, owner, v);
    await Promise.all([agent, widget].map(connected));

    const toVisitor = next<Pushed>(widget, EVENTS.messageCreated, (p) => p.message.file_name === 'Quote 7.pdf');
    const sent = await postForm(a.app, '/api/vms/messages', owner.token, { visitor_id: v.id, message: 'Here it is' }, docPart(PDF, 'Quote 7.pdf'));
    expect(sent.status).toBe(201);
    const pushed = (await toVisitor).message;
    expect(pushed).toMatchObject({ id: sent.body.data.id, sender_type: 'user', message: 'Here it is', file_type: DOCUMENT_TYPES.pdf, file_size: PDF.length });

    const toAgent = next<Pushed>(agent, EVENTS.messageCreated, (p) => p.message.visitor_id === v.id && p.message.file_name === 'Signed.docx');
    const back = await postForm(b.app, '/api/widget/messages', v.token, { client_id: 'signed-docx' }, docPart(DOCX, 'Signed.docx'));
    expect(back.status).toBe(201);
    expect((await toAgent).message).toMatchObject({ id: back.body.data.id, sender_type: 'visitor', file_type: DOCUMENT_TYPES.docx, file_size: DOCX.length });

    // Either node serves either file, as an attachment under its name, never sniffed.
    for (const [node, m, bytes] of [[b, pushed, PDF], [a, back.body.data, DOCX]] as const) {
      const res = await node.app.inject({ method: 'GET', url: `/storage/${m.file_path}?name=${encodeURIComponent(m.file_name ?? '')}` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="${m.file_name}"`);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.rawPayload.equals(bytes)).toBe(true);
    }
    // The visitor's history on the other node holds both, in order.
    const history = (await call(a.app, 'GET', '/api/widget/messages', { token: v.token })).body.data as { file_name?: string }[];
    expect(history.map((m) => m.file_name).filter(Boolean)).toEqual(['Quote 7.pdf', 'Signed.docx']);
  });
});
