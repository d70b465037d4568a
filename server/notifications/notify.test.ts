import { afterEach, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { publicUrlOf } from '../config.js';
import { messages, outbox, sentEmails, users, widgetSettings } from '../db/schema.js';
import { jobsSettings } from '../jobs/config.js';
import { DeferJob, type JobContext } from '../jobs/types.js';
import type { MailMessage, Mailer } from '../services/mail.js';
import { secretBoxFor } from '../services/secrets.js';
import { buildAccount, insertVisitorWithConversation, type TestOwner } from '../test/factories.js';
import { buildJobsApp, type JobsTestApp } from '../test/jobs.js';
import { statementsOfRun } from '../test/statements.js';
import { digestDedupeKey } from './budget.js';
import { notifyOwner } from './notify.js';

/**
 * notifyOwner run straight (no worker takes the jobs the test's messages cause, so nothing else
 * runs this code meanwhile), with a mailer that records what it is given.
 */

interface Harness {
  t: JobsTestApp;
  ctx: JobContext;
  mails: MailMessage[];
  owner: TestOwner;
  /** The next `n` sends fail (as an SMTP server refusing would). */
  failNext(n: number): void;
  /** Sends wait until `release` is called. */
  holdSends(): { release(): void; started: Promise<void> };
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.t.close();
  h = undefined;
});

async function setup(budget = 10): Promise<Harness> {
  const t = await buildJobsApp({ runner: 'in-process', jobs: { workers: false, emailBudget: budget, emailBudgetSeconds: 3600, digestSeconds: 900 } });
  const mails: MailMessage[] = [];
  let failures = 0;
  let gate: Promise<void> | undefined;
  let started: (() => void) | undefined;
  const mailer: Mailer = {
    async send(m) {
      started?.();
      if (gate) await gate;
      if (failures > 0) {
        failures--;
        throw new Error('451 Try again later');
      }
      mails.push(m);
      return { messageId: m.messageId ?? '' };
    },
    close() {},
  };
  const app = t.app;
  const ctx: JobContext = {
    db: app.db,
    log: app.log,
    mailer,
    secrets: secretBoxFor(app.config),
    settings: jobsSettings(app.config.jobs, app.config.visitorReplies),
    publicUrl: publicUrlOf(app.config),
    storageRoot: app.config.uploads.root,
  };
  const owner = await buildAccount(app);
  h = {
    t,
    ctx,
    mails,
    owner,
    failNext: (n) => {
      failures = n;
    },
    holdSends() {
      let release!: () => void;
      gate = new Promise<void>((r) => {
        release = () => {
          gate = undefined;
          r();
        };
      });
      const startedPromise = new Promise<void>((r) => {
        started = () => {
          started = undefined;
          r();
        };
      });
      return { release, started: startedPromise };
    },
  };
  return h;
}

async function chat(x: Harness, name = 'Vera') {
  const { conversationId } = await insertVisitorWithConversation(x.t.app, x.owner.user.account_id, { name, message: 'Hello there' });
  return { accountId: x.owner.user.account_id, conversationId, key: `trigger-${conversationId}` };
}

const rowOf = async (x: Harness, conversationId: number) =>
  (await x.t.app.db.select().from(sentEmails).where(eq(sentEmails.conversationId, conversationId)))[0];

describe('the owner notification job', () => {
  it('sends a new-chat email in 7 statements, and a second run of the job in 5 without sending it again', async () => {
    const x = await setup();
    const p = await chat(x);
    const first = await statementsOfRun(x.t.app, () => notifyOwner('newChat', p, x.ctx));
    expect(x.mails).toHaveLength(1);
    expect(x.mails[0]!.subject).toBe('New chat from visitor "Vera"');
    expect(x.mails[0]!.text).toContain('Vera: Hello there');
    expect(await rowOf(x, p.conversationId)).toMatchObject({ status: 'sent', lockedUntil: null, kind: 'newChat' });
    // The reads (conversation, visitor, toggle, batching window, owner), the budget's
    // transaction (begin, lock, one insert, commit), the transcript, 'sent'.
    expect(first.statements).toBe(7);

    const again = await statementsOfRun(x.t.app, () => notifyOwner('newChat', p, x.ctx));
    expect(x.mails).toHaveLength(1);
    // The read, and the budget's transaction, which finds the key sent.
    expect(again.statements).toBe(5);
  });

  it('past the budget records the email held and the digest job in 6 statements, and a second run holds nothing more', async () => {
    const x = await setup(1);
    const first = await chat(x, 'Ann');
    await notifyOwner('newChat', first, x.ctx);
    expect(x.mails).toHaveLength(1);
    const second = await chat(x, 'Bob');
    const held = await statementsOfRun(x.t.app, () => notifyOwner('newChat', second, x.ctx));
    expect(x.mails).toHaveLength(1);
    expect(await rowOf(x, second.conversationId)).toMatchObject({ status: 'held', lockedUntil: null });
    // The read, then begin, lock, the insert, the digest's outbox row, commit.
    expect(held.statements).toBe(6);
    const digests = () => x.t.app.db.select().from(outbox).where(eq(outbox.dedupeKey, digestDedupeKey(x.owner.user.account_id)));
    expect(await digests()).toHaveLength(1);
    expect((await digests())[0]).toMatchObject({ name: 'notify.digest', payload: { accountId: x.owner.user.account_id } });

    const again = await statementsOfRun(x.t.app, () => notifyOwner('newChat', second, x.ctx));
    expect(again.statements).toBe(5);
    expect(await digests()).toHaveLength(1);
    expect(await rowOf(x, second.conversationId)).toMatchObject({ status: 'held' });
    expect(x.mails).toHaveLength(1);
  });

  it('keeps the budget exact when many jobs of one account run at once', async () => {
    const x = await setup(3);
    const chats = [];
    for (let i = 0; i < 12; i++) chats.push(await chat(x, `Visitor ${i}`));
    const results = await Promise.allSettled(chats.map((p) => notifyOwner('newChat', p, x.ctx)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(x.mails).toHaveLength(3);
    const rows = await x.t.app.db.select().from(sentEmails).where(eq(sentEmails.accountId, x.owner.user.account_id));
    expect(rows.filter((r) => r.status === 'sent')).toHaveLength(3);
    expect(rows.filter((r) => r.status === 'held')).toHaveLength(9);
    expect(await x.t.app.db.select().from(outbox).where(eq(outbox.dedupeKey, digestDedupeKey(x.owner.user.account_id)))).toHaveLength(1);
  });

  it('does not send twice when a second run of the job comes while the first is sending', async () => {
    const x = await setup();
    const p = await chat(x);
    const hold = x.holdSends();
    const first = notifyOwner('newChat', p, x.ctx);
    await hold.started; // the first run holds the email (claimed by the budget's insert) and is sending
    await expect(notifyOwner('newChat', p, x.ctx)).rejects.toThrow('the same notification is being sent by another run');
    hold.release();
    await first;
    expect(x.mails).toHaveLength(1);
    await notifyOwner('newChat', p, x.ctx); // the retry of the second run: already sent
    expect(x.mails).toHaveLength(1);
    expect(await rowOf(x, p.conversationId)).toMatchObject({ status: 'sent', lockedUntil: null });
  });

  it('releases the email it claimed when SMTP fails, and its retry sends it once', async () => {
    const x = await setup();
    const p = await chat(x);
    x.failNext(1);
    await expect(notifyOwner('newChat', p, x.ctx)).rejects.toThrow('451');
    expect(await rowOf(x, p.conversationId)).toMatchObject({ status: 'sending', lockedUntil: null });
    const retry = await statementsOfRun(x.t.app, () => notifyOwner('newChat', p, x.ctx));
    expect(x.mails).toHaveLength(1);
    expect(await rowOf(x, p.conversationId)).toMatchObject({ status: 'sent', lockedUntil: null });
    // The read, the budget's transaction (it finds the key unsent), the claim, the transcript, 'sent'.
    expect(retry.statements).toBe(8);
    // The budget counted it once.
    const rows = await x.t.app.db.select().from(sentEmails).where(eq(sentEmails.accountId, x.owner.user.account_id));
    expect(rows).toHaveLength(1);
  });

  it('stops after its one read when the toggle is off, the account has no owner or an agent answered', async () => {
    const x = await setup();
    const accountId = x.owner.user.account_id;
    const toggledOff = await chat(x);
    await x.t.app.db
      .update(widgetSettings)
      .set({ emailNotifications: { newChats: false, offlineMessages: true, missedChats: true } })
      .where(eq(widgetSettings.accountId, accountId));
    expect((await statementsOfRun(x.t.app, () => notifyOwner('newChat', toggledOff, x.ctx))).statements).toBe(1);
    // The other kinds' toggles are on.
    await notifyOwner('offlineMessage', toggledOff, x.ctx);
    expect(x.mails.map((m) => m.subject)).toEqual(['Offline message from visitor "Vera"']);

    // Missed chat: answered after the waiting message, or not.
    const waiting = await chat(x, 'Wanda');
    const [message] = await x.t.app.db.select().from(messages).where(eq(messages.conversationId, waiting.conversationId));
    const missed = { ...waiting, messageId: message!.id };
    await x.t.app.db.insert(messages).values({ accountId, conversationId: waiting.conversationId, senderType: 'user', authorId: x.owner.user.id, message: 'Hi!' });
    expect((await statementsOfRun(x.t.app, () => notifyOwner('missedChat', missed, x.ctx))).statements).toBe(1);
    expect(x.mails).toHaveLength(1);
    const [answer] = await x.t.app.db.select().from(messages).where(and(eq(messages.conversationId, waiting.conversationId), eq(messages.senderType, 'user')));
    await notifyOwner('missedChat', { ...missed, key: 'later', messageId: answer!.id }, x.ctx); // nothing answered after this one
    expect(x.mails.map((m) => m.subject)).toContain('Missed chat from visitor "Wanda"');

    const orphan = await chat(x, 'Olga');
    await x.t.app.db.update(users).set({ type: 'team_member' }).where(and(eq(users.accountId, accountId), eq(users.type, 'owner')));
    const sentBefore = x.mails.length;
    expect((await statementsOfRun(x.t.app, () => notifyOwner('offlineMessage', orphan, x.ctx))).statements).toBe(1);
    expect(x.mails).toHaveLength(sentBefore);
    expect(await rowOf(x, orphan.conversationId)).toBeUndefined();
  });

  it('defers an email of a kind already sent for the conversation within the batching window to its end', async () => {
    const x = await setup();
    const p = await chat(x);
    await notifyOwner('offlineMessage', p, x.ctx);
    const sentAt = (await rowOf(x, p.conversationId))!.sentAt!;
    const next = { ...p, key: 'next-message' };
    const deferred = await statementsOfRun(x.t.app, () => notifyOwner('offlineMessage', next, x.ctx).then(() => undefined, (err: unknown) => err));
    expect(deferred.result).toBeInstanceOf(DeferJob);
    expect((deferred.result as DeferJob).untilMs).toBe(new Date(sentAt).getTime() + x.ctx.settings.batchWindowMs);
    expect(deferred.statements).toBe(1);
    // Another kind is not batched behind it.
    await notifyOwner('newChat', p, x.ctx);
    expect(x.mails.map((m) => m.subject)).toEqual(['Offline message from visitor "Vera"', 'New chat from visitor "Vera"']);
  });
});
