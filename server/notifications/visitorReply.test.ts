import { describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { jobs, widgetSettings } from '../db/schema.js';
import { buildVisitor, postForm, type TestVisitor } from '../test/chatFactories.js';
import { buildAccount, call, type TestOwner } from '../test/factories.js';
import { decodeHeader, sharedJobsApp, sleep, settleJobs } from '../test/jobs.js';
import { connect, connected, listen } from '../test/sockets.js';
import { signVisitorLink } from '../services/visitorLinks.js';

// Agent replies emailed to an away visitor who left an email (issue 12 item 8), through the
// in-process job runner and a real SMTP server.
describe('reply emails to away visitors', { timeout: 90_000 }, () => {
  // One SMTP server and one app (and database) for the file: each test has its own accounts,
  // visitors and addresses, and the mailbox is emptied after each.
  const shared = sharedJobsApp({ runner: 'in-process', env: { VISITOR_REPLY_BATCH_SECONDS: '5' } });

  async function setup() {
    const app = shared.app;
    const owner = await buildAccount(app, { name: 'Agnes Agent' });
    await app.database.db.update(widgetSettings).set({ name: 'Acme <Shop>' }).where(eq(widgetSettings.accountId, owner.user.account_id));
    return { app, owner };
  }

  async function visitorWrites(owner: TestOwner, body: Record<string, string> = { name: 'Vera', email: 'vera@example.com' }): Promise<TestVisitor> {
    const v = await buildVisitor(shared.app, owner.widgetKey, body);
    const res = await call(shared.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'Do you ship to Oslo?' } });
    expect(res.status).toBe(201);
    return v;
  }

  async function agentReplies(owner: TestOwner, v: TestVisitor, text: string) {
    const res = await postForm(shared.app, '/api/vms/messages', owner.token, { visitor_id: v.id, message: text });
    expect(res.status).toBe(201);
  }

  const toVisitor = (email = 'vera@example.com') => shared.smtp.mails.filter((m) => m.to.includes(email));
  const pendingReplyJobs = async () =>
    (await shared.app.database.db.select().from(jobs).where(and(eq(jobs.name, 'notify.visitorReply'), eq(jobs.status, 'pending')))).length;

  async function visitorMails(n: number) {
    const until = Date.now() + 20_000;
    while (toVisitor().length < n) {
      if (Date.now() > until) throw new Error(`expected ${n} emails to the visitor, got ${toVisitor().length}`);
      await sleep(25);
    }
  }

  /** Waits until the runner has no reply job left (sent or skipped). */
  async function settled() {
    await settleJobs(shared.app, 'notify.visitorReply', 20_000);
    if ((await pendingReplyJobs()) > 0) throw new Error('reply job still pending');
  }

  it('emails a burst of replies as one email, with the business name and a link that restores the chat', async () => {
    const { app, owner } = await setup();
    const v = await visitorWrites(owner);
    await agentReplies(owner, v, 'Hello Vera!');
    await agentReplies(owner, v, 'Yes, we ship to <Oslo> & Bergen.');
    await agentReplies(owner, v, 'Anything else?');
    await visitorMails(1);
    await settled();
    await sleep(300);
    const mails = toVisitor();
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(decodeHeader(mail.headers.subject!)).toBe('Acme <Shop> replied to your message');
    expect(mail.text).toContain('Hello Vera,');
    expect(mail.text).toContain('Agnes Agent: Hello Vera!');
    expect(mail.text).toContain('Agnes Agent: Yes, we ship to <Oslo> & Bergen.');
    expect(mail.text).toContain('Agnes Agent: Anything else?');
    expect(mail.html).toContain('Yes, we ship to &lt;Oslo&gt; &amp; Bergen.');
    expect(mail.html).not.toContain('<Oslo>');
    const link = /http:\/\/localhost:3000(\/api\/chat\/[^\s]+)/.exec(mail.text)?.[1];
    expect(link).toBeDefined();

    // The link's page loads the widget for this business and trades the link for a token.
    const pageRes = await app.inject({ method: 'GET', url: link! });
    expect(pageRes.statusCode).toBe(200);
    expect(pageRes.headers['content-type']).toMatch(/^text\/html/);
    expect(pageRes.headers['content-security-policy']).toMatch(/script-src 'self' 'nonce-[^']+'; /);
    expect(pageRes.headers['content-security-policy']).not.toMatch(/ ws: | wss: /);
    expect(pageRes.body).toContain('Chat with Acme &lt;Shop&gt;');
    expect(pageRes.body).toContain(owner.widgetKey);
    expect(pageRes.body).not.toContain('<Shop>');
    const segment = link!.split('/').pop()!;
    const resumed = await call(app, 'POST', '/api/widget/resume', { body: { link: segment } });
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({ visitor_id: v.id, name: 'Vera', email: 'vera@example.com' });
    const token = resumed.body.data.visitor_token as string;
    expect(token).not.toBe(v.token);
    const history = await call(app, 'GET', '/api/widget/messages', { token });
    expect(history.status).toBe(200);
    expect(history.body.data.map((m: { message: string }) => m.message)).toEqual([
      'Do you ship to Oslo?',
      'Hello Vera!',
      'Yes, we ship to <Oslo> & Bergen.',
      'Anything else?',
    ]);
    // The visitor writes on from the link's browser; their first browser's token still works.
    expect((await call(app, 'POST', '/api/widget/messages', { token, body: { message: 'Thanks!' } })).status).toBe(201);
    expect((await call(app, 'GET', '/api/widget/messages', { token: v.token })).body.data).toHaveLength(5);

    // A later reply is a new email with only what is new.
    await setVisitorAway(v);
    await agentReplies(owner, v, 'You are welcome.');
    await visitorMails(2);
    await settled();
    const second = toVisitor()[1]!;
    expect(second.text).toContain('Agnes Agent: You are welcome.');
    expect(second.text).not.toContain('Hello Vera!');
  });

  /** The visitor's last visit well before now (as if they left the site a while ago). */
  async function setVisitorAway(v: TestVisitor) {
    const { visitors } = await import('../db/schema.js');
    await shared.app.database.db.update(visitors).set({ lastSeenAt: new Date(Date.now() - 60_000) }).where(eq(visitors.id, v.id));
  }

  it('refuses a tampered, expired or malformed link (404, no token issued)', async () => {
    const { app, owner } = await setup();
    const v = await visitorWrites(owner);
    const good = await signVisitorLink(app.database.db, v.id);
    const tampered = good.slice(0, -2) + (good.endsWith('AA') ? 'BB' : 'AA');
    const expired = await signVisitorLink(app.database.db, v.id, new Date(Date.now() - 31 * 24 * 3600_000));
    const otherVisitor = good.replace(v.id, '00000000-0000-4000-8000-000000000000');
    for (const link of [tampered, expired, otherVisitor, v.id, 'junk', '']) {
      const res = await call(app, 'POST', '/api/widget/resume', { body: { link } });
      expect(res.status, link).toBe(404);
      expect(res.body).toEqual({ message: 'This chat link is not valid or has expired', error: 'This chat link is not valid or has expired' });
    }
    const page = await app.inject({ method: 'GET', url: `/api/chat/${tampered}` });
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain('This chat link is not valid or has expired');
    expect(page.body).not.toContain(owner.widgetKey);
    expect((await call(app, 'POST', '/api/widget/resume', { body: { link: good } })).status).toBe(200);
    // The page's address after the trade (a reload): the widget for the browser that holds the
    // token, no link and no way to get a token.
    const reloaded = await app.inject({ method: 'GET', url: `/api/chat/${v.id}` });
    expect(reloaded.statusCode).toBe(200);
    expect(reloaded.body).toContain(owner.widgetKey);
    expect(reloaded.body).toContain('"link":""');
  });

  it('sends nothing when the visitor left no email, has the widget open, or came back within the window', async () => {
    const { app, owner } = await setup();
    // No email.
    const anonymous = await visitorWrites(owner, { name: 'Nobody' });
    await agentReplies(owner, anonymous, 'Hi there');
    await sleep(300);
    expect(await pendingReplyJobs()).toBe(0);

    // Online: a widget socket is connected when the agent replies.
    const base = await listen(app);
    const online = await visitorWrites(owner, { name: 'Olga', email: 'olga@example.com' });
    const socket = connect(base, { widget_key: owner.widgetKey, visitor_token: online.token });
    await connected(socket);
    await agentReplies(owner, online, 'I see you are here');
    // The job is recorded with the reply; when it runs, the widget is still open: no email.
    await settled();
    socket.disconnect();

    // Away when the agent replies, back on the site before the window ends.
    const back = await visitorWrites(owner, { name: 'Bea', email: 'bea@example.com' });
    await agentReplies(owner, back, 'Answer while you were away');
    const until = Date.now() + 5000;
    while ((await pendingReplyJobs()) === 0 && Date.now() < until) await sleep(20); // enqueued in the background
    expect(await pendingReplyJobs()).toBe(1);
    expect((await call(app, 'PATCH', '/api/widget/visitor', { token: back.token, body: { page_url: 'https://shop.example/again' } })).status).toBe(200);
    await settled();
    await sleep(300);
    expect(toVisitor('olga@example.com')).toHaveLength(0);
    expect(toVisitor('bea@example.com')).toHaveLength(0);
  });

  it("a link and its token reach only that visitor's conversation", async () => {
    const { app, owner } = await setup();
    const other = await buildAccount(app);
    const mine = await visitorWrites(owner);
    const theirs = await visitorWrites(other, { name: 'Theo', email: 'theo@example.com' });
    const resumed = await call(app, 'POST', '/api/widget/resume', { body: { link: await signVisitorLink(app.database.db, mine.id) } });
    const token = resumed.body.data.visitor_token as string;
    const history = await call(app, 'GET', '/api/widget/messages', { token });
    expect(history.body.data).toHaveLength(1);
    // The token is not a console token, and the other account's visitor is untouched.
    expect((await call(app, 'GET', '/api/vms/conversations', { token })).status).toBe(401);
    expect((await call(app, 'GET', '/api/widget/messages', { token: theirs.token })).body.data).toHaveLength(1);
  });
});
