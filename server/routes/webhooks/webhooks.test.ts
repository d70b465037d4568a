import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EMAIL_NOT_VERIFIED, WEBHOOK_URL_INVALID } from '@parley/shared';
import { users, webhookEndpoints } from '../../db/schema.js';
import { mailDir } from '../../services/mail.js';
import { buildChattingVisitor } from '../../test/chatFactories.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { verifyWebhook } from '../../webhooks/sign.js';

/** What the local receiver got: headers and raw body of each request, in arrival order. */
interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  answered: number;
}

let t: TestApp;
let receiver: http.Server;
let base: string;
let received: Received[] = [];
/** Decides each answer's status (default 200). */
let answer: (r: Omit<Received, 'answered'>) => number = () => 200;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const r = { path: req.url ?? '', headers: req.headers, body };
      const status = answer(r);
      received.push({ ...r, answered: status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status >= 400 ? 'receiver is down' : 'ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_MAX_ATTEMPTS: '5' });
});
afterAll(async () => {
  await t.close();
  await new Promise<void>((r) => receiver.close(() => r()));
});
beforeEach(() => {
  received = [];
  answer = () => 200;
});

async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** buildAccount verifies the owner's email unless told not to (webhooks need it). */
const verifiedOwner = (app = t.app): Promise<TestOwner> => buildAccount(app);

async function register(owner: TestOwner, path: string, events: string[]): Promise<{ id: string; secret: string }> {
  const res = await call(t.app, 'POST', '/api/vms/webhooks', { token: owner.token, body: { url: `${base}${path}`, events } });
  if (res.status !== 201) throw new Error(`webhook create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.data.id, secret: res.body.data.secret };
}

const bodies = (path: string) => received.filter((r) => r.path === path).map((r) => JSON.parse(r.body) as { id: string; type: string; data: any });

describe('registering endpoints', () => {
  it('lets the owner and Admins register, list, change and delete; Agents get 403; the secret is shown once', async () => {
    const owner = await verifiedOwner();
    const admin = await buildMember(t.app, owner, 'Admin');
    const agent = await buildMember(t.app, owner, 'Agent');
    const created = await call(t.app, 'POST', '/api/vms/webhooks', { token: admin.token, body: { url: `${base}/crm`, events: ['message.created'] } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ url: `${base}/crm`, events: ['message.created'], status: 'active', failing_since: null });
    expect(created.body.data.secret).toMatch(/^whsec_/);
    const list = await call(t.app, 'GET', '/api/vms/webhooks', { token: owner.token });
    expect(list.body.data).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain(created.body.data.secret);
    for (const [method, url, body] of [
      ['GET', '/api/vms/webhooks', undefined],
      ['POST', '/api/vms/webhooks', { url: `${base}/x`, events: ['message.created'] }],
      ['PATCH', `/api/vms/webhooks/${created.body.data.id}`, { status: 'paused' }],
      ['DELETE', `/api/vms/webhooks/${created.body.data.id}`, undefined],
      ['GET', `/api/vms/webhooks/${created.body.data.id}/deliveries`, undefined],
    ] as const) {
      expect((await call(t.app, method, url, { token: agent.token, ...(body ? { body } : {}) })).status, `${method} ${url}`).toBe(403);
    }
    const patched = await call(t.app, 'PATCH', `/api/vms/webhooks/${created.body.data.id}`, { token: owner.token, body: { events: ['rating.given', 'conversation.resolved'] } });
    expect(patched.body.data.events).toEqual(['rating.given', 'conversation.resolved']);
    expect((await call(t.app, 'DELETE', `/api/vms/webhooks/${created.body.data.id}`, { token: owner.token })).status).toBe(200);
    expect((await call(t.app, 'GET', '/api/vms/webhooks', { token: owner.token })).body.data).toEqual([]);
  });

  it('needs the owner’s verified email, and hides other accounts’ endpoints (404)', async () => {
    const unverified = await buildAccount(t.app);
    // An owner who has not opened the verification link yet (the harness verifies at sign-up).
    await t.database.db.update(users).set({ emailVerifiedAt: null }).where(eq(users.id, unverified.user.id));
    const res = await call(t.app, 'POST', '/api/vms/webhooks', { token: unverified.token, body: { url: `${base}/x`, events: ['message.created'] } });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(EMAIL_NOT_VERIFIED);
    const owner = await verifiedOwner();
    const other = await verifiedOwner();
    const ep = await register(owner, '/mine', ['message.created']);
    for (const [method, url] of [
      ['PATCH', `/api/vms/webhooks/${ep.id}`],
      ['DELETE', `/api/vms/webhooks/${ep.id}`],
      ['GET', `/api/vms/webhooks/${ep.id}/deliveries`],
      ['GET', '/api/vms/webhooks/not-a-uuid/deliveries'],
    ] as const) {
      const r = await call(t.app, method, url, { token: other.token, ...(method === 'PATCH' ? { body: { status: 'paused' } } : {}) });
      expect(r.status, `${method} ${url}`).toBe(404);
      expect(r.body.message).toBe('Webhook endpoint not found');
    }
    expect((await call(t.app, 'GET', '/api/vms/webhooks', { token: owner.token })).body.data[0].status).toBe('active');
  });

  it('refuses plain http, private and reserved addresses unless the operator allows private addresses', async () => {
    const strict = await createTestApp();
    try {
      const owner = await verifiedOwner(strict.app);
      for (const [url, message] of [
        ['http://example.com/hook', WEBHOOK_URL_INVALID],
        ['not a url', WEBHOOK_URL_INVALID],
        ['https://127.0.0.1/hook', 'The URL points to a private or reserved address.'],
        ['https://[::ffff:10.0.0.1]/hook', 'The URL points to a private or reserved address.'],
        ['https://169.254.169.254/latest', 'The URL points to a private or reserved address.'],
        ['https://localhost/hook', 'The URL points to a private or reserved address.'],
        ['https://user:pw@example.com/hook', 'The URL must not contain a user name or password.'],
      ]) {
        const res = await call(strict.app, 'POST', '/api/vms/webhooks', { token: owner.token, body: { url, events: ['message.created'] } });
        expect(res.status, url).toBe(422);
        expect(res.body.errors.url, url).toEqual([message]);
      }
      expect((await call(strict.app, 'POST', '/api/vms/webhooks', { token: owner.token, body: { url: 'https://example.com/hook', events: [] } })).body.errors.events).toEqual([
        'Choose at least one event',
      ]);
      const ok = await call(strict.app, 'POST', '/api/vms/webhooks', { token: owner.token, body: { url: 'https://example.com/hook', events: ['message.created'] } });
      expect(ok.status).toBe(201);
      // A row that points at loopback anyway (stored before a policy change): the delivery is refused by the guard.
      await strict.database.db.update(webhookEndpoints).set({ url: `${base.replace('http:', 'https:')}/sneaky` }).where(eq(webhookEndpoints.id, ok.body.data.id));
      await buildChattingVisitor(strict.app, owner.widgetKey, 'hello');
      const log = await waitFor('a refused attempt', async () => {
        const d = (await call(strict.app, 'GET', `/api/vms/webhooks/${ok.body.data.id}/deliveries`, { token: owner.token })).body.data;
        return d.length && d[0].attempts > 0 && d;
      });
      expect(log[0].last_error).toBe('The URL points to a private or reserved address.');
      expect(received.filter((r) => r.path === '/sneaky')).toEqual([]);
    } finally {
      await strict.close();
    }
  });
});

describe('deliveries to a local receiver', () => {
  it('signs every delivery (HMAC-SHA256 over timestamp.body) with an id that is the idempotency key', async () => {
    const owner = await verifiedOwner();
    const ep = await register(owner, '/signed', ['conversation.created', 'message.created']);
    const visitor = await buildChattingVisitor(t.app, owner.widgetKey, 'Where is my order?');
    await waitFor('two deliveries', () => received.filter((r) => r.path === '/signed').length >= 2);
    const got = received.filter((r) => r.path === '/signed');
    expect(got.map((r) => r.headers['parley-webhook-event'])).toEqual(['conversation.created', 'message.created']);
    for (const r of got) {
      const body = JSON.parse(r.body);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['parley-webhook-id']).toBe(body.id);
      expect(verifyWebhook(ep.secret, String(r.headers['parley-webhook-timestamp']), r.body, String(r.headers['parley-webhook-signature']))).toBe(true);
      expect(verifyWebhook('whsec_wrong', String(r.headers['parley-webhook-timestamp']), r.body, String(r.headers['parley-webhook-signature']))).toBe(false);
      expect(verifyWebhook(ep.secret, String(r.headers['parley-webhook-timestamp']), `${r.body} `, String(r.headers['parley-webhook-signature']))).toBe(false);
      expect(body.account_id).toBe(owner.user.account_id);
    }
    const [, message] = bodies('/signed');
    expect(message!.data.message).toMatchObject({ message: 'Where is my order?', visitor_id: visitor.id });
    const log = (await call(t.app, 'GET', `/api/vms/webhooks/${ep.id}/deliveries`, { token: owner.token })).body.data;
    expect(log.map((d: any) => [d.event, d.status, d.response_code, d.attempts])).toEqual([
      ['message.created', 'delivered', 200, 1],
      ['conversation.created', 'delivered', 200, 1],
    ]);
  });

  it('retries after a 500 with the same id, and logs each answer', async () => {
    const owner = await verifiedOwner();
    const ep = await register(owner, '/flaky', ['message.created']);
    let failures = 2;
    answer = (r) => (r.path === '/flaky' && failures-- > 0 ? 500 : 200);
    await buildChattingVisitor(t.app, owner.widgetKey, 'retry me');
    await waitFor('a delivered retry', () => received.some((r) => r.path === '/flaky' && r.answered === 200));
    const got = received.filter((r) => r.path === '/flaky');
    expect(got.map((r) => r.answered)).toEqual([500, 500, 200]);
    expect(new Set(got.map((r) => r.headers['parley-webhook-id'])).size).toBe(1);
    for (const r of got) expect(verifyWebhook(ep.secret, String(r.headers['parley-webhook-timestamp']), r.body, String(r.headers['parley-webhook-signature']))).toBe(true);
    const [d] = (await call(t.app, 'GET', `/api/vms/webhooks/${ep.id}/deliveries`, { token: owner.token })).body.data;
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, response_code: 200, last_error: null });
  });

  it('keeps one conversation’s deliveries in order while an earlier one is retried', async () => {
    const owner = await verifiedOwner();
    await register(owner, '/ordered', ['message.created']);
    let failFirst = 3;
    answer = (r) => (r.path === '/ordered' && JSON.parse(r.body).data.message.message === 'one' && failFirst-- > 0 ? 500 : 200);
    const visitor = await buildChattingVisitor(t.app, owner.widgetKey, 'one');
    for (const text of ['two', 'three']) {
      expect((await call(t.app, 'POST', '/api/widget/messages', { token: visitor.token, body: { message: text } })).status).toBe(201);
    }
    await waitFor('three delivered', () => received.filter((r) => r.path === '/ordered' && r.answered === 200).length >= 3);
    const order = received.filter((r) => r.path === '/ordered').map((r) => `${JSON.parse(r.body).data.message.message}:${r.answered}`);
    expect(order).toEqual(['one:500', 'one:500', 'one:500', 'one:200', 'two:200', 'three:200']);
  });

  it('resends a delivery with the same event id on request', async () => {
    const owner = await verifiedOwner();
    const ep = await register(owner, '/resend', ['message.created']);
    await buildChattingVisitor(t.app, owner.widgetKey, 'again please');
    await waitFor('first delivery', () => received.some((r) => r.path === '/resend'));
    const [d] = (await call(t.app, 'GET', `/api/vms/webhooks/${ep.id}/deliveries`, { token: owner.token })).body.data;
    const res = await call(t.app, 'POST', `/api/vms/webhooks/${ep.id}/deliveries/${d.id}/resend`, { token: owner.token });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ event: 'message.created', status: 'pending', attempts: 0 });
    await waitFor('the resend', () => received.filter((r) => r.path === '/resend').length >= 2);
    const [first, second] = bodies('/resend');
    expect(second!.id).toBe(first!.id);
    const other = await verifiedOwner();
    expect((await call(t.app, 'POST', `/api/vms/webhooks/${ep.id}/deliveries/${d.id}/resend`, { token: other.token })).status).toBe(404);
  });
});

describe('which events are sent', () => {
  it('sends resolved, assigned, rating.given (not a second resolve) and visitor.identified, each once', async () => {
    const owner = await verifiedOwner();
    await register(owner, '/all', ['conversation.created', 'conversation.resolved', 'conversation.assigned', 'message.created', 'visitor.identified', 'rating.given']);
    const visitor = await buildChattingVisitor(t.app, owner.widgetKey, 'hello', 'Rita');
    expect((await call(t.app, 'POST', `/api/vms/conversations/${visitor.id}/assign`, { token: owner.token, body: { user_id: owner.user.id } })).status).toBe(200);
    expect((await call(t.app, 'POST', `/api/vms/conversations/${visitor.id}/status`, { token: owner.token, body: { status: 'resolved' } })).status).toBe(200);
    expect((await call(t.app, 'POST', '/api/widget/rating', { token: visitor.token, body: { score: 5 } })).status).toBe(201);
    expect((await call(t.app, 'PATCH', '/api/widget/visitor', { token: visitor.token, body: { email: 'rita@example.com' } })).status).toBe(200);
    await waitFor('six events', () => received.filter((r) => r.path === '/all').length >= 6);
    await new Promise((r) => setTimeout(r, 500)); // nothing more comes
    const types = bodies('/all').map((b) => b.type);
    expect(types.sort()).toEqual(['conversation.assigned', 'conversation.created', 'conversation.resolved', 'message.created', 'rating.given', 'visitor.identified']);
    const all = bodies('/all');
    expect(all.find((b) => b.type === 'conversation.assigned')!.data.conversation.assignee_id).toBe(owner.user.id);
    expect(all.find((b) => b.type === 'rating.given')!.data.rating).toMatchObject({ score: 5 });
    expect(all.find((b) => b.type === 'visitor.identified')!.data.visitor).toMatchObject({ email: 'rita@example.com' });
  });
});

describe('an endpoint that keeps failing', () => {
  it('is paused, its owner is emailed, and a resume sends what waited', async () => {
    const paused = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_PAUSE_AFTER_MINUTES: '0' });
    try {
      const owner = await verifiedOwner(paused.app);
      const created = await call(paused.app, 'POST', '/api/vms/webhooks', { token: owner.token, body: { url: `${base}/down`, events: ['message.created'] } });
      const id = created.body.data.id;
      let down = true;
      answer = (r) => (r.path === '/down' && down ? 503 : 200);
      await buildChattingVisitor(paused.app, owner.widgetKey, 'anyone there?');
      const ep = await waitFor('the pause', async () => {
        const [e] = (await call(paused.app, 'GET', '/api/vms/webhooks', { token: owner.token })).body.data;
        return e.status === 'paused' && e;
      });
      expect(ep.failing_since).not.toBeNull();
      const mail = await waitFor('the owner’s email', async () => {
        const files = await fs.readdir(mailDir(paused.dataDir)).catch(() => [] as string[]);
        for (const f of files) {
          const text = await fs.readFile(`${mailDir(paused.dataDir)}/${f}`, 'utf8');
          if (text.includes('webhook endpoint was paused')) return text;
        }
        return undefined;
      });
      expect(mail).toContain(owner.email);
      const tries = received.filter((r) => r.path === '/down').length;
      await new Promise((r) => setTimeout(r, 300));
      expect(received.filter((r) => r.path === '/down').length).toBe(tries);
      down = false;
      const resumed = await call(paused.app, 'PATCH', `/api/vms/webhooks/${id}`, { token: owner.token, body: { status: 'active' } });
      expect(resumed.body.data).toMatchObject({ status: 'active', failing_since: null });
      await waitFor('the delivery after resume', () => received.some((r) => r.path === '/down' && r.answered === 200));
    } finally {
      await paused.close();
    }
  });
});
