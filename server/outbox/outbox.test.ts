import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { messages, outbox, widgetSettings } from '../db/schema.js';
import { buildVisitor } from '../test/chatFactories.js';
import { buildAccount, call } from '../test/factories.js';
import { buildJobsApp, decodeHeader, jobsSuite, privateRedis, reopenableDb, type ServerProcess, sleep, startServerProcess, uniquePrefix } from '../test/jobs.js';

/**
 * Issue 11, finding 10: a job is an outbox row written with the message that causes it, relayed
 * to BullMQ by any live node, kept until the job finished, and relayed again when Redis lost it.
 */
const s = jobsSuite();

async function waitUntil(what: string, ok: () => Promise<boolean>, ms = 10_000, state: () => Promise<unknown> = async () => ''): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await state())}`);
    await sleep(50);
  }
}

describe('outbox with BullMQ on a private redis-server', () => {
  it('emails a chat stored while Redis is down once Redis is back, though the node that stored it was killed right after the write', { timeout: 240_000 }, async () => {
    const redis = await privateRedis();
    const db = await reopenableDb();
    let node: ServerProcess | undefined;
    try {
      // The account and its visitor, made in-process on the database the node will use.
      const setup = await buildJobsApp({ runner: 'in-process', jobs: { workers: false }, db });
      const owner = await buildAccount(setup.app);
      await setup.app.database.db
        .update(widgetSettings)
        .set({ emailNotifications: { newChats: true, offlineMessages: false, missedChats: false } })
        .where(eq(widgetSettings.accountId, owner.user.account_id));
      const v = await buildVisitor(setup.app, owner.widgetKey, { name: 'Dora' });
      await setup.app.close();
      await setup.database.close();

      // A real node on Redis; Redis dies; a visitor writes; the node is killed (kill -9) right after.
      node = await startServerProcess({ ...db.env, REDIS_URL: redis.url, SMTP_URL: s.smtp.url, MISSED_CHAT_DELAY_SECONDS: '3600' });
      await redis.kill();
      const res = await fetch(`${node.base}/api/widget/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${v.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Is anyone there?' }),
        signal: AbortSignal.timeout(30_000),
      });
      expect(res.status).toBe(201);
      await node.kill();
      expect(s.smtp.mails).toHaveLength(0);

      // Redis comes back (empty); another node starts: the chat's email goes out, once.
      await redis.start();
      s.t = await buildJobsApp({ runner: 'bullmq', smtpUrl: s.smtp.url, jobs: { missedChatDelaySeconds: 3600, queuePrefix: 'parley' }, db, env: { REDIS_URL: redis.url } });
      const stored = await s.t.app.database.db.select({ id: messages.id }).from(messages);
      expect(stored, 'the chat was stored').toHaveLength(1);
      const [mail] = await s.smtp.waitFor(1, 30_000).catch(async (e: Error) => {
        throw new Error(`${e.message}; outbox: ${JSON.stringify(await s.t!.app.database.db.select().from(outbox))}`);
      });
      expect(decodeHeader(mail!.headers.subject!)).toContain('New chat from');
      expect(mail!.to).toEqual([owner.email]);
      // Done jobs leave the outbox; the missed-chat check (an hour away) waits in Redis.
      const rows = () => s.t!.app.database.db.select().from(outbox);
      await waitUntil('the new-chat row to be done', async () => (await rows()).length === 1, 10_000, rows);
      const [left] = await s.t.app.database.db.select().from(outbox);
      expect(left).toMatchObject({ name: 'notify.missedChat', status: 'relayed' });
      await sleep(300);
      expect(s.smtp.mails).toHaveLength(1);
    } finally {
      await node?.kill();
      await s.t?.close();
      s.t = undefined;
      await redis.kill();
      await db.drop();
    }
  });

  it('notices a Redis restart without persistence, relays the lost delayed job again and counts the loss on /metrics', { timeout: 120_000 }, async () => {
    const redis = await privateRedis();
    try {
      s.t = await buildJobsApp({
        runner: 'bullmq',
        smtpUrl: s.smtp.url,
        jobs: { missedChatDelaySeconds: 3, outboxCheckSeconds: 1, queuePrefix: uniquePrefix(), relayTimeoutMs: 500 },
        env: { REDIS_URL: redis.url, METRICS_TOKEN: 'metrics-test-token-0123456789' },
      });
      const app = s.t.app;
      const owner = await buildAccount(app);
      await app.database.db
        .update(widgetSettings)
        .set({ emailNotifications: { newChats: false, offlineMessages: false, missedChats: true } })
        .where(eq(widgetSettings.accountId, owner.user.account_id));
      const v = await buildVisitor(app, owner.widgetKey, { name: 'Lena' });
      expect((await call(app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'Hello?' } })).status).toBe(201);
      // The new-chat job (toggled off) finishes; the missed-chat check waits in Redis, due in 3 s.
      await waitUntil('the missed-chat job to be relayed', async () => {
        const rows = await app.database.db.select().from(outbox);
        return rows.length === 1 && rows[0]!.status === 'relayed';
      });

      await redis.kill(); // no persistence: the delayed job is gone
      await redis.start();

      const [mail] = await s.smtp.waitFor(1, 20_000);
      expect(decodeHeader(mail!.headers.subject!)).toContain('Missed chat from');
      const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer metrics-test-token-0123456789' } });
      expect(metrics.statusCode).toBe(200);
      expect(metrics.body).toMatch(/^parley_outbox_lost_total\{node="[^"]+"\} 1$/m);
      await waitUntil('the outbox to empty', async () => (await app.database.db.select().from(outbox)).length === 0);
      await sleep(300);
      expect(s.smtp.mails).toHaveLength(1);
    } finally {
      await s.t?.close();
      s.t = undefined;
      await redis.kill();
    }
  });
});
