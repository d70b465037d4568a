import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { TRANSCRIPT_EMAIL_NEEDED, TRANSCRIPT_NOTHING_YET, TRANSCRIPT_TOO_MANY, TRANSCRIPTS_PER_HOUR } from '@parley/shared';
import { transcriptRequests, widgetSettings } from '../../db/schema.js';
import { buildVisitor, postForm, type TestVisitor } from '../../test/chatFactories.js';
import { buildAccount, call, type TestOwner } from '../../test/factories.js';
import { decodeHeader, settleJobs, sharedJobsApp, sleep } from '../../test/jobs.js';

// Issue 13, transcripts: asked from the widget, emailed through the jobs (in-process runner) to a
// real SMTP server, at once for a resolved conversation, at the resolve otherwise.
describe('transcripts by email', { timeout: 90_000 }, () => {
  const shared = sharedJobsApp({ runner: 'in-process' });

  async function setup(): Promise<{ owner: TestOwner; v: TestVisitor }> {
    const app = shared.app;
    const owner = await buildAccount(app, { name: 'Tess Team' });
    await app.database.db.update(widgetSettings).set({ name: 'Tide & <Co>' }).where(eq(widgetSettings.accountId, owner.user.account_id));
    const v = await buildVisitor(app, owner.widgetKey, { name: 'Vic', email: 'vic@example.com' });
    expect((await call(app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'Can I return <shoes> & socks?' } })).status).toBe(201);
    expect((await postForm(app, '/api/vms/messages', owner.token, { visitor_id: v.id, message: 'Yes, within 30 days.' })).status).toBe(201);
    // A private note never reaches the visitor's transcript.
    expect((await call(app, 'POST', `/api/vms/conversations/${v.id}/notes`, { token: owner.token, body: { message: 'internal: VIP customer' } })).status).toBeLessThan(300);
    return { owner, v };
  }
  const ask = (v: TestVisitor) => call(shared.app, 'POST', '/api/widget/transcript', { token: v.token });
  const resolve = (owner: TestOwner, v: TestVisitor) => call(shared.app, 'POST', `/api/vms/conversations/${v.id}/status`, { token: owner.token, body: { status: 'resolved' } });
  const mailsTo = (to: string) => shared.smtp.mails.filter((m) => m.to.includes(to));
  async function waitMails(to: string, n: number) {
    const until = Date.now() + 20_000;
    while (mailsTo(to).length < n) {
      if (Date.now() > until) throw new Error(`expected ${n} emails to ${to}, got ${mailsTo(to).length}`);
      await sleep(25);
    }
  }

  it('waits for the resolve, then emails the stretch with the business name, HTML and text, without notes', async () => {
    const { owner, v } = await setup();
    const asked = await ask(v);
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ message: 'success', data: { status: 'scheduled' } });
    await sleep(300);
    expect(mailsTo('vic@example.com')).toHaveLength(0);

    expect((await resolve(owner, v)).status).toBe(200);
    await waitMails('vic@example.com', 1);
    const mail = mailsTo('vic@example.com')[0]!;
    mail.text = mail.text.replace(/\r\n/g, '\n');
    expect(decodeHeader(mail.headers.subject ?? '')).toBe('Your conversation with Tide & <Co>');
    expect(mail.text).toContain('Here is the transcript of your conversation with Tide & <Co>.');
    expect(mail.text).toContain('Vic:\nCan I return <shoes> & socks?');
    expect(mail.text).toContain('Tess Team:\nYes, within 30 days.');
    expect(mail.html).toContain('Can I return &lt;shoes&gt; &amp; socks?');
    expect(mail.html).toContain('Tide &amp; &lt;Co&gt;');
    expect(mail.html).not.toContain('<shoes>');
    for (const part of [mail.text, mail.html]) {
      expect(part).not.toContain('VIP customer');
      expect(part).not.toContain('resolved the conversation');
    }
    // The request is used up: nothing waits any more, and a reopen + resolve sends nothing new.
    expect(await shared.app.database.db.select().from(transcriptRequests)).toEqual([]);
    await call(shared.app, 'POST', `/api/vms/conversations/${v.id}/status`, { token: owner.token, body: { status: 'open' } });
    await resolve(owner, v);
    await settleJobs(shared.app, 'transcript.send', 10_000);
    expect(mailsTo('vic@example.com')).toHaveLength(1);
  });

  it('sends at once for a resolved conversation, a few an hour at most', async () => {
    const { owner, v } = await setup();
    await resolve(owner, v);
    expect((await ask(v)).body.data).toEqual({ status: 'sent' });
    await waitMails('vic@example.com', 1);
    for (let i = 1; i < TRANSCRIPTS_PER_HOUR; i++) {
      expect((await ask(v)).status).toBe(200);
      await waitMails('vic@example.com', i + 1);
    }
    const refused = await ask(v);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe(TRANSCRIPT_TOO_MANY);
    await sleep(300);
    expect(mailsTo('vic@example.com')).toHaveLength(TRANSCRIPTS_PER_HOUR);
  });

  it('needs the visitor email and a conversation; the visitor token only', async () => {
    const owner = await buildAccount(shared.app);
    const anonymous = await buildVisitor(shared.app, owner.widgetKey);
    const noEmail = await ask(anonymous);
    expect(noEmail.status).toBe(422);
    expect(noEmail.body.errors.email).toEqual([TRANSCRIPT_EMAIL_NEEDED]);
    const withEmail = await buildVisitor(shared.app, owner.widgetKey, { email: 'quiet@example.com' });
    const nothing = await ask(withEmail);
    expect(nothing.status).toBe(409);
    expect(nothing.body.message).toBe(TRANSCRIPT_NOTHING_YET);
    expect((await call(shared.app, 'POST', '/api/widget/transcript', { token: owner.token })).status).toBe(401);
  });
});
