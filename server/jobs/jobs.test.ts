import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { jobs as jobsTable, visitors, widgetSettings } from '../db/schema.js';
import { InProcessRunner } from './inProcess.js';
import type { JobContext } from './types.js';
import { buildVisitor } from '../test/chatFactories.js';
import { buildAccount, call } from '../test/factories.js';
import {
  buildJobsApp,
  decodeHeader,
  jobsSuite,
  reopenableDb,
  type RunnerKind,
  sleep,
  uniquePrefix,
} from '../test/jobs.js';

const s = jobsSuite();

describe.each<RunnerKind>(['in-process', 'bullmq'])('restart (%s runner)', (runner) => {
  it('runs a job that was pending when the app closed after a new app starts on the same database', async () => {
    const db = await reopenableDb();
    const queuePrefix = uniquePrefix();
    const jobs = { missedChatDelaySeconds: 1, queuePrefix };
    const first = await buildJobsApp({ runner, smtpUrl: s.smtp.url, jobs, db });
    // Closed and dropped by afterEach even when an assertion fails midway.
    s.t = {
      ...first,
      close: async () => {
        await first.app.close();
        await first.database.close().catch(() => {});
        await db.drop();
      },
    };
    const owner = await buildAccount(first.app);
    await first.app.database.db
      .update(widgetSettings)
      .set({ emailNotifications: { newChats: false, offlineMessages: false, missedChats: true } })
      .where(eq(widgetSettings.accountId, owner.user.account_id));
    const v = await buildVisitor(first.app, owner.widgetKey, { name: 'Rita' });
    expect((await call(first.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'Still there?' } })).status).toBe(201);
    await first.app.events.drain(); // notifications are scheduled in the background
    // The new-chat job (toggled off) finishes; the missed-chat check stays pending, due in a second.
    const until = Date.now() + 10_000; // generous: a busy machine
    while ((await first.app.jobs.counts()).pending > 1 && Date.now() < until) await sleep(25);
    expect(await first.app.jobs.counts()).toEqual({ pending: 1, failed: 0 });
    await first.app.close();
    await first.database.close();
    s.t = undefined;
    await sleep(1200); // due while no process runs
    expect(s.smtp.mails).toHaveLength(0);

    s.t = await buildJobsApp({ runner, smtpUrl: s.smtp.url, jobs, db });
    const [mail] = await s.smtp.waitFor(1);
    expect(decodeHeader(mail!.headers.subject!)).toBe('Missed chat from visitor "Rita"');
    expect(mail!.to).toEqual([owner.email]);
    await sleep(300);
    expect(s.smtp.mails).toHaveLength(1);
    expect(await s.t.app.jobs.counts()).toEqual({ pending: 0, failed: 0 });
    const close = s.t.close;
    s.t.close = async () => {
      await close();
      await db.drop();
    };
  });
});

describe('jobs without SMTP and without workers', () => {
  it('writes each email as an .eml file under DATA_DIR/mail when SMTP_URL is not set', async () => {
    s.t = await buildJobsApp({ runner: 'in-process', jobs: { missedChatDelaySeconds: 3600 } });
    const owner = await buildAccount(s.t.app);
    const v = await buildVisitor(s.t.app, owner.widgetKey, { name: 'Emil' });
    await call(s.t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'Hi <there>' } });
    const dir = path.join(s.t.dataDir, 'mail');
    const until = Date.now() + 5000;
    let files: string[] = [];
    while (files.length === 0 && Date.now() < until) {
      files = await fs.readdir(dir).catch(() => []);
      await sleep(50);
    }
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.eml$/);
    const eml = await fs.readFile(path.join(dir, files[0]!), 'utf8');
    expect(eml).toContain(`To: ${owner.email}`);
    expect(decodeHeader(/^Subject: (.*)$/m.exec(eml)?.[1] ?? '')).toBe('New chat from visitor "Emil"');
    expect(eml).toContain('Hi &lt;there&gt;');
  });

  it('keeps jobs pending in the database when this process runs no workers', async () => {
    s.t = await buildJobsApp({ runner: 'in-process', jobs: { workers: false } });
    const owner = await buildAccount(s.t.app);
    const v = await buildVisitor(s.t.app, owner.widgetKey);
    await call(s.t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'Hello' } });
    await sleep(300);
    const rows = await s.t.app.database.db.select().from(jobsTable);
    expect(rows.map((r) => r.name).sort()).toEqual(['notify.missedChat', 'notify.newChat']);
    expect(rows.every((r) => r.status === 'pending')).toBe(true);
    await expect(s.t.app.jobs.enqueue('notify.newChat', { accountId: 'nope', conversationId: 1, key: 'k' } as never)).rejects.toThrow();
  });

  it('frees a finished job\'s dedupe key at once: a job added with it before the runner\'s next look is a new job', async () => {
    // Workers off: this test plays the runner's steps itself, in the order a busy runner can take them.
    s.t = await buildJobsApp({ runner: 'in-process', jobs: { workers: false } });
    const db = s.t.app.database.db;
    const runner = new InProcessRunner(db, { db, log: s.t.app.log, settings: s.t.app.jobs.settings } as unknown as JobContext);
    const steps = runner as unknown as { claim(done: number[], limit: number): Promise<{ claimed: { id: number }[] }>; finished: number[] };
    const entry = (n: number) => ({ topic: 'job', name: 'transcript.send', payload: { n }, dedupeKey: 'transcript:7:0' });
    await runner.insertNow(entry(1));
    await runner.insertNow(entry(2)); // waits to go with the first: joined
    expect(await db.select({ payload: jobsTable.payload }).from(jobsTable)).toEqual([{ payload: { n: 1 } }]);
    const { claimed } = await steps.claim([], 1);
    expect(claimed).toHaveLength(1);
    await runner.insertNow(entry(3)); // the first is running: still joined
    // The first job's handler returned: it is done, though the runner has not looked at the table since.
    steps.finished.push(claimed[0]!.id);
    await runner.insertNow(entry(4));
    const rows = await db.select({ payload: jobsTable.payload, status: jobsTable.status }).from(jobsTable);
    expect(rows).toEqual([{ payload: { n: 4 }, status: 'pending' }]);
  });
});

describe('POST /api/widget/offline', () => {
  it('validates the email and message and requires the visitor token', async () => {
    s.t = await buildJobsApp({ runner: 'in-process', jobs: { workers: false } });
    const app = s.t.app;
    const owner = await buildAccount(app);
    const v = await buildVisitor(app, owner.widgetKey);
    const cases: [unknown, string, string][] = [
      [{ message: 'Hi' }, 'email', 'The email field is required'],
      [{ email: '  ', message: 'Hi' }, 'email', 'The email field is required'],
      [{ email: 'not-an-email', message: 'Hi' }, 'email', 'Please enter a valid email address'],
      [{ email: `${'a'.repeat(250)}@example.com`, message: 'Hi' }, 'email', 'Please enter a valid email address'],
      [{ email: 'a@b.co' }, 'message', 'The message field is required'],
      [{ email: 'a@b.co', message: 'x'.repeat(5001) }, 'message', 'Message must be at most 5000 characters'],
      [{ email: 'a@b.co', message: 42 }, 'message', 'The message field is required'],
    ];
    for (const [body, field, text] of cases) {
      const res = await call(app, 'POST', '/api/widget/offline', { token: v.token, body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(res.body.errors[field]).toEqual([text]);
    }
    expect((await call(app, 'POST', '/api/widget/offline', { body: { email: 'a@b.co', message: 'Hi' } })).status).toBe(401);
    expect((await call(app, 'POST', '/api/widget/offline', { token: 'bogus', body: { email: 'a@b.co', message: 'Hi' } })).status).toBe(401);
    // A console token is not a visitor token.
    expect((await call(app, 'POST', '/api/widget/offline', { token: owner.token, body: { email: 'a@b.co', message: 'Hi' } })).status).toBe(401);

    const ok = await call(app, 'POST', '/api/widget/offline', { token: v.token, body: { email: ' sam@example.com ', message: "'; drop table visitors; --" } });
    expect(ok.status).toBe(201);
    expect(ok.body.data.message).toBe("'; drop table visitors; --");
    const [row] = await app.database.db.select().from(visitors).where(eq(visitors.id, v.id));
    expect(row!.email).toBe('sam@example.com');
  });
});
