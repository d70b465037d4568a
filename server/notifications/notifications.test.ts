import { describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { widgetSettings } from '../db/schema.js';
import { buildVisitor, postForm, type TestVisitor } from '../test/chatFactories.js';
import { buildAccount, call, everyoneOffline, type TestOwner } from '../test/factories.js';
import {
  buildJobsApp,
  decodeHeader,
  jobsSuite,
  type RunnerKind,
  
  sleep,
  uniquePrefix,
} from '../test/jobs.js';
import type { JobsConfig } from '../config.js';

// Each test builds its own app (migrations included): on embedded PGlite on a busy machine that alone takes seconds.
vi.setConfig({ testTimeout: 90_000 });

const EVIL = '<script>alert("x")</script> & co';

describe.each<RunnerKind>(['in-process', 'bullmq'])('owner notifications (%s runner)', (runner) => {
const s = jobsSuite();

  async function setup(jobs: Partial<JobsConfig> = {}) {
    s.t = await buildJobsApp({ runner, smtpUrl: s.smtp.url, jobs: { missedChatDelaySeconds: 3600, queuePrefix: uniquePrefix(), ...jobs } });
    const owner = await buildAccount(s.t.app);
    return { app: s.t.app, owner };
  }

  async function visitorSays(owner: TestOwner, text: string, visitor?: TestVisitor) {
    const v =
      visitor ??
      (await buildVisitor(s.t!.app, owner.widgetKey, { name: 'Vera <b>', email: 'vera@example.com', page_url: 'https://shop.example/p?a=1&b=<2>' }));
    const res = await call(s.t!.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: text } });
    expect(res.status).toBe(201);
    return v;
  }

  const subjects = () => s.smtp.mails.map((m) => decodeHeader(m.headers.subject ?? ''));

  it('emails the owner about a new chat, with escaped HTML, the visitor details and a link', async () => {
    const { owner } = await setup();
    const v = await visitorSays(owner, EVIL);
    const [mail] = await s.smtp.waitFor(1);
    await sleep(300);
    expect(s.smtp.mails).toHaveLength(1); // an agent (the owner) is online: no offline email
    expect(mail!.to).toEqual([owner.email]);
    expect(decodeHeader(mail!.headers.subject!)).toBe('New chat from visitor "Vera <b>"');
    expect(mail!.headers['reply-to']).toBeUndefined();
    expect(mail!.text).toContain(`Vera <b>: ${EVIL}`);
    expect(mail!.text).toContain('Email: vera@example.com');
    expect(mail!.text).toContain('Page: https://shop.example/p?a=1&b=<2>');
    expect(mail!.text).toContain(`http://localhost:3000/conversations?visitor=${v.id}`);
    expect(mail!.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co');
    expect(mail!.html).not.toContain('<script>');
    expect(mail!.html).toContain('Vera &lt;b&gt;');
    expect(mail!.html).toContain(`href="http://localhost:3000/conversations?visitor=${v.id}"`);
  });

  it('emails an offline message with the visitor as reply-to when no agent is online', async () => {
    const { owner } = await setup();
    await everyoneOffline(s.t!.app, owner.user.account_id);
    await visitorSays(owner, 'Anyone there?');
    await s.smtp.waitFor(2);
    await sleep(200);
    expect(subjects().sort()).toEqual(['New chat from visitor "Vera <b>"', 'Offline message from visitor "Vera <b>"']);
    const offline = s.smtp.mails.find((m) => decodeHeader(m.headers.subject!).startsWith('Offline'))!;
    expect(offline.to).toEqual([owner.email]);
    expect(offline.headers['reply-to']).toBe('vera@example.com');
    expect(offline.text).toContain('Vera <b>: Anyone there?');
  });

  it('emails the offline form message with the email it gives as reply-to', async () => {
    const { app, owner } = await setup();
    await app.database.db
      .update(widgetSettings)
      .set({ emailNotifications: { newChats: false, offlineMessages: true, missedChats: true } })
      .where(eq(widgetSettings.accountId, owner.user.account_id));
    const v = await buildVisitor(app, owner.widgetKey, { name: 'Otto' });
    const res = await call(app, 'POST', '/api/widget/offline', { token: v.token, body: { email: 'otto@example.org', message: 'Call me <back>' } });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ message: 'Call me <back>', sender_type: 'visitor', visitor_id: v.id });
    const [mail] = await s.smtp.waitFor(1);
    await sleep(200);
    expect(s.smtp.mails).toHaveLength(1);
    expect(decodeHeader(mail!.headers.subject!)).toBe('Offline message from visitor "Otto"');
    expect(mail!.headers['reply-to']).toBe('otto@example.org');
    expect(mail!.text).toContain('Email: otto@example.org');
    expect(mail!.html).toContain('Call me &lt;back&gt;');
  });

  it('emails a missed chat when no agent answers in time, and not when one does', async () => {
    const { app, owner } = await setup({ missedChatDelaySeconds: 1 });
    await app.database.db
      .update(widgetSettings)
      .set({ emailNotifications: { newChats: false, offlineMessages: false, missedChats: true } })
      .where(eq(widgetSettings.accountId, owner.user.account_id));
    const answered = await visitorSays(owner, 'Hello?');
    const unanswered = await buildVisitor(app, owner.widgetKey, { name: 'Ursula' });
    await visitorSays(owner, 'Is anybody there?', unanswered);
    const reply = await call(app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: answered.id, message: 'Hi, how can I help?' } });
    expect(reply.status).toBe(201);
    const [mail] = await s.smtp.waitFor(1);
    await sleep(1500);
    expect(s.smtp.mails).toHaveLength(1);
    expect(decodeHeader(mail!.headers.subject!)).toBe('Missed chat from visitor "Ursula"');
    expect(mail!.text).toContain(`visitor=${unanswered.id}`);
    // Only the agent's reply emailed to the away visitor (notifications/visitorReply.ts) waits for its batch.
    expect(await app.jobs.counts()).toEqual({ pending: 1, failed: 0 });
  });

  it.each([
    ['newChats', 'New chat'],
    ['offlineMessages', 'Offline message'],
    ['missedChats', 'Missed chat'],
  ] as const)('the %s toggle switches its email off', async (toggle, subject) => {
    const { app, owner } = await setup({ missedChatDelaySeconds: 1 });
    const form = await postForm(app, '/api/vms/widget-settings', owner.token, {
      name: 'Support',
      color: '#667eea',
      email_notifications: JSON.stringify({ newChats: true, offlineMessages: true, missedChats: true, [toggle]: false }),
    });
    expect(form.status).toBe(200);
    await everyoneOffline(app, owner.user.account_id);
    await visitorSays(owner, 'Hi');
    await s.smtp.waitFor(2);
    await sleep(1500);
    expect(subjects()).toHaveLength(2);
    expect(subjects().some((s) => s.startsWith(subject))).toBe(false);
  });

  it('sends one missed-chat email per unanswered stretch: writing on joins it, an answer starts the next', async () => {
    const { app, owner } = await setup({ missedChatDelaySeconds: 1, batchWindowSeconds: 1 });
    await app.database.db
      .update(widgetSettings)
      .set({ emailNotifications: { newChats: false, offlineMessages: false, missedChats: true } })
      .where(eq(widgetSettings.accountId, owner.user.account_id));
    const v = await visitorSays(owner, 'one');
    await visitorSays(owner, 'two', v);
    await visitorSays(owner, 'three', v);
    const [first] = await s.smtp.waitFor(1);
    await sleep(1500);
    expect(s.smtp.mails).toHaveLength(1);
    expect(first!.text).toContain('Vera <b>: three');
    await visitorSays(owner, 'still waiting', v); // the same stretch: no second email
    await sleep(1500);
    expect(s.smtp.mails).toHaveLength(1);
    const reply = await call(app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'Sorry, here now' } });
    expect(reply.status).toBe(201);
    await visitorSays(owner, 'four', v); // a new stretch, unanswered again
    const mails = await s.smtp.waitFor(2, 5000);
    expect(decodeHeader(mails[1]!.headers.subject!)).toBe('Missed chat from visitor "Vera <b>"');
    expect(mails[1]!.text).toContain('Vera <b>: four');
    await app.events.drain();
    // The job that sent it may still be finishing (recording the email) when the mail arrives.
    const until = Date.now() + 5000;
    // Only the agent's reply emailed to the away visitor (notifications/visitorReply.ts) waits for its batch.
    while ((await app.jobs.counts()).pending > 1 && Date.now() < until) await sleep(50);
    expect(await app.jobs.counts()).toEqual({ pending: 1, failed: 0 });
    expect(s.smtp.mails).toHaveLength(2);
  });

  it('sends at most one email per conversation and kind within the window, then the latest messages', async () => {
    // One attempt only: waiting for the window's end is not a failed attempt.
    const { app, owner } = await setup({ batchWindowSeconds: 2, attempts: 1 });
    await app.database.db
      .update(widgetSettings)
      .set({ emailNotifications: { newChats: false, offlineMessages: true, missedChats: false } })
      .where(eq(widgetSettings.accountId, owner.user.account_id));
    await everyoneOffline(app, owner.user.account_id);
    const v = await visitorSays(owner, 'first');
    await s.smtp.waitFor(1);
    await visitorSays(owner, 'second', v);
    await visitorSays(owner, 'third', v);
    await sleep(800);
    expect(s.smtp.mails).toHaveLength(1); // the next one waits for the window's end
    const mails = await s.smtp.waitFor(2, 5000);
    await sleep(500);
    expect(mails).toHaveLength(2);
    expect(mails[1]!.text).toContain('Vera <b>: second');
    expect(mails[1]!.text).toContain('Vera <b>: third');
    expect((await app.jobs.counts()).failed).toBe(0);
  });

  it('retries when the SMTP server fails, then delivers the email once', async () => {
    const { app, owner } = await setup();
    s.smtp.failNext(2);
    await visitorSays(owner, 'Are you open?');
    await s.smtp.waitFor(1);
    await sleep(800);
    expect(s.smtp.mails).toHaveLength(1);
    // Only the missed-chat check (an hour away) still waits.
    expect(await app.jobs.counts()).toEqual({ pending: 1, failed: 0 });
  });

  it('keeps a job that exhausted its retries as failed, counted on /metrics', async () => {
    const { app, owner } = await setup({ attempts: 2 });
    s.smtp.failNext(100);
    await visitorSays(owner, 'Hello');
    const until = Date.now() + 5000;
    while ((await app.jobs.counts()).failed === 0 && Date.now() < until) await sleep(50);
    expect(await app.jobs.counts()).toEqual({ pending: 1, failed: 1 }); // the missed-chat check waits
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toMatch(/^parley_jobs_failed_total\{node="[^"]+"\} 1$/m);
    expect(res.body).toMatch(/^parley_jobs_pending\{node="[^"]+"\} 1$/m);
    expect(s.smtp.mails).toHaveLength(0);
  });

  it('sends one email when the same notification job runs twice', async () => {
    const { app, owner } = await setup();
    await app.database.db
      .update(widgetSettings)
      .set({ emailNotifications: { newChats: true, offlineMessages: false, missedChats: false } })
      .where(eq(widgetSettings.accountId, owner.user.account_id));
    const v = await buildVisitor(app, owner.widgetKey, { name: 'Ida' });
    await call(app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: v.id, message: 'Welcome!' } });
    const [conv] = await app.database.db.query.conversations.findMany({ where: (c, { eq }) => eq(c.visitorId, v.id) });
    const payload = { accountId: owner.user.account_id, conversationId: conv!.id, key: 'same-trigger' };
    await app.jobs.enqueue('notify.newChat', payload);
    await app.jobs.enqueue('notify.newChat', payload);
    await s.smtp.waitFor(1);
    await sleep(500);
    expect(s.smtp.mails).toHaveLength(1);
    expect(decodeHeader(s.smtp.mails[0]!.headers.subject!)).toBe('New chat from visitor "Ida"');
  });
});
