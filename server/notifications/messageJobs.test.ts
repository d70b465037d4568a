import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { sendMessage } from '../commands/sendMessage.js';
import { jobs, outbox, visitors } from '../db/schema.js';
import { DomainEvents } from '../services/domainEvents.js';
import { buildVisitor } from '../test/chatFactories.js';
import { buildAccount } from '../test/factories.js';
import { createTestApp, type TestApp } from '../test/harness.js';

/**
 * Issue 11, finding 10: every job a message causes is written with the message. Here the node
 * "dies" right after the commit: the command runs with an event bus nobody listens to and a
 * queue that is never woken, so only what the write itself recorded exists afterwards.
 */
let t: TestApp;
beforeAll(async () => {
  // No workers: what the write recorded stays (in the outbox, or in the in-process queue once relayed).
  t = await createTestApp({ JOBS_WORKERS: 'false' });
});
afterAll(() => t.close());

/** sendMessage as a node that crashes after the commit: no subscriber reacts, no relay is woken. */
function sendAndCrash(input: Parameters<typeof sendMessage>[1]) {
  const deadEvents = new DomainEvents(t.app.log);
  return sendMessage({ db: t.app.db, storage: t.app.storage, events: deadEvents, jobs: { settings: t.app.jobs.settings, wake: () => {} } }, input);
}

/** The conversation's jobs, wherever they are now: still in the outbox, or relayed to the queue's table. */
async function rowsOf(conversationId: number) {
  const select = { name: outbox.name, payload: outbox.payload, dedupeKey: outbox.dedupeKey };
  const rows = [
    ...(await t.app.db.select(select).from(outbox)),
    ...(await t.app.db.select({ name: jobs.name, payload: jobs.payload, dedupeKey: jobs.dedupeKey }).from(jobs)),
  ];
  return rows
    .filter((r) => (r.payload as { conversationId?: number }).conversationId === conversationId)
    .map((r) => ({ name: r.name, payload: r.payload as Record<string, unknown>, dedupeKey: r.dedupeKey }));
}

async function visitorRow(widgetKey: string, body: Record<string, string>) {
  const v = await buildVisitor(t.app, widgetKey, body);
  const [row] = await t.app.db.select().from(visitors).where(eq(visitors.id, v.id));
  return row!;
}

describe('jobs recorded with the message that causes them', () => {
  it("an agent's reply carries its learning job and, for a visitor with an email, the reply email, on both write paths", async () => {
    const owner = await buildAccount(t.app);
    const visitor = await visitorRow(owner.widgetKey, { name: 'Vera', email: 'vera@example.com' });
    const author = { id: owner.user.id, name: owner.user.name };

    // First message of the conversation (the transaction path), then the one-statement path.
    const first = await sendAndCrash({ visitor, senderType: 'user', author, text: 'Hello Vera, how can I help?' });
    const second = await sendAndCrash({ visitor, senderType: 'user', author, text: 'We ship to Oslo in two days.' });
    const rows = await rowsOf(first.conversation.id);

    const learning = rows.filter((r) => r.name === 'ai.learnFromReply');
    expect(learning.map((r) => r.payload.messageId).sort()).toEqual([first.message.id, second.message.id].sort());
    expect(learning.every((r) => r.dedupeKey === null)).toBe(true);
    // One email per burst: the second reply joined the first's pending job.
    const emails = rows.filter((r) => r.name === 'notify.visitorReply');
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({ payload: { messageId: first.message.id }, dedupeKey: `notify:visitorReply:${first.conversation.id}` });
  });

  it('a reply to a visitor without an email records no reply email; a visitor message records no learning', async () => {
    const owner = await buildAccount(t.app);
    const visitor = await visitorRow(owner.widgetKey, { name: 'Nina' });
    const sent = await sendAndCrash({ visitor, senderType: 'visitor', author: null, text: 'Hi, anyone there?' });
    await sendAndCrash({ visitor, senderType: 'user', author: { id: owner.user.id, name: owner.user.name }, text: 'Yes, here!' });
    const names = (await rowsOf(sent.conversation.id)).map((r) => r.name);
    expect(names).toContain('notify.newChat');
    expect(names).toContain('ai.learnFromReply');
    expect(names).not.toContain('notify.visitorReply');
    expect(names.filter((n) => n === 'ai.learnFromReply')).toHaveLength(1);
  });

  it("the offline form's owner email is written with its message even while an agent is online", async () => {
    const owner = await buildAccount(t.app);
    const visitor = await visitorRow(owner.widgetKey, { name: 'Olga', email: 'olga@example.com' });
    // The owner just signed up: their session counts as online, so a plain visitor message would not email.
    const plain = await sendAndCrash({ visitor, senderType: 'visitor', author: null, text: 'First question' });
    expect((await rowsOf(plain.conversation.id)).map((r) => r.name)).not.toContain('notify.offlineMessage');

    await sendAndCrash({ visitor, senderType: 'visitor', author: null, text: 'Please email me back', countsTowardLimit: false, offlineForm: true });
    expect((await rowsOf(plain.conversation.id)).map((r) => r.name)).toContain('notify.offlineMessage');
  });
});
