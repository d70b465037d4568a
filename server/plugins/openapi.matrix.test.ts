import { Ajv } from 'ajv';
import { Secret, TOTP } from 'otpauth';
import { createUserLink } from '../routes/auth/userLinks.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { aiAnswers, aiChatMessages, aiFeedback, conversations, messages } from '../db/schema.js';
import { signVisitorLink } from '../services/visitorLinks.js';
import { buildChattingVisitor, type FilePart, multipart, pngPart } from '../test/chatFactories.js';
import { buildAccount, buildMember, type TestOwner } from '../test/factories.js';
import { createTestApp, type TestApp } from '../test/harness.js';
import { jsonSchemaOf } from '../test/openApiSchema.js';

/**
 * The whole route matrix with valid input: every operation of GET /api/openapi.json is called the
 * way an integrator would, and its real success answer must have a status the document lists,
 * with a JSON schema, that the body satisfies (undocumented fields included: the document's
 * objects list every field). Every operation of the document must be called here, so a new
 * route cannot skip the document nor answer without a documented schema.
 */
type Schema = object;
type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: Schema }> }> }>>; components: { schemas: Record<string, Schema> } };

let t: TestApp;
let doc: Doc;
let owner: TestOwner;
const ajv = new Ajv({ strict: false, allErrors: true });

interface Case {
  op: string;
  /** The URL when it differs from the path (ids, query). */
  url?: () => string;
  body?: () => unknown;
  form?: () => { fields: Record<string, string>; image?: boolean; file?: FilePart };
  /** Whose token: the owner's (default), the visitor's, none, or one given. */
  as?: 'owner' | 'visitor' | 'none' | (() => string);
  /** Runs first (fixtures the call needs). */
  before?: () => Promise<void>;
  /** Reads ids from the answer for later cases. */
  keep?: (body: any) => void;
}

const ids: Record<string, string> = {};
const PASSWORD = 'Sup3r-secret!';
const codeOf = (secret: string, steps = 0) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * 30_000 });
let visitor: { id: string; token: string };
/** Plan ids by name (GET /api/plans). */
let plans: Record<string, number> = {};
const plan = (name: string) => plans[name];

const CASES: Case[] = [
  { op: 'POST /api/vms/register', as: 'none', body: () => ({ name: 'Reg Ister', email: `reg-${Date.now()}@example.com`, password: 'Sup3r-secret!', password_confirmation: 'Sup3r-secret!' }) },
  { op: 'POST /api/vms/login', as: 'none', body: () => ({ email: owner.email, password: owner.password }) },
  { op: 'GET /api/vms/user' },
  { op: 'PUT /api/vms/user/update', body: () => ({ name: 'Olivia Renamed', email: owner.email }) },
  { op: 'POST /api/vms/webhooks', body: () => ({ url: 'https://127.0.0.1:9/hook', events: ['message.created'] }), keep: (b) => (ids.hook = b.data.id) },
  { op: 'POST /api/widget/visitors', as: 'none', body: () => ({ unique_code: owner.widgetKey, name: 'Wanda' }) },
  { op: 'POST /api/widget/messages', as: 'visitor', body: () => ({ message: 'Hello from the matrix' }) },
  { op: 'GET /api/widget/messages', as: 'visitor' },
  { op: 'PATCH /api/widget/visitor', as: 'visitor', body: () => ({ name: 'Vera Visitor' }) },
  { op: 'POST /api/widget/events', as: 'none', body: () => ({ unique_code: owner.widgetKey, load_id: 'load-matrix-1', kind: 'load' }) },
  { op: 'GET /api/vms/conversations' },
  { op: 'GET /api/vms/search', url: () => '/api/vms/search?q=hello' },
  { op: 'GET /api/vms/messages/{visitor_id}', url: () => `/api/vms/messages/${visitor.id}` },
  { op: 'POST /api/vms/messages', form: () => ({ fields: { visitor_id: visitor.id, message: 'A reply with a picture' }, image: true }) },
  { op: 'POST /api/vms/conversations/{visitorId}/status', url: () => `/api/vms/conversations/${visitor.id}/status`, body: () => ({ status: 'resolved' }) },
  { op: 'GET /api/widget/rating', as: 'visitor' },
  { op: 'POST /api/widget/rating', as: 'visitor', body: () => ({ score: 5, comment: 'Quick and kind' }) },
  { op: 'GET /api/vms/ratings/settings' },
  { op: 'PUT /api/vms/ratings/settings', body: () => ({ enabled: true }) },
  { op: 'GET /api/vms/ratings/summary' },
  { op: 'POST /api/widget/offline', as: 'visitor', body: () => ({ email: 'vera@example.com', message: 'Call me back please' }) },
  { op: 'POST /api/widget/transcript', as: 'visitor' },
  { op: 'POST /api/vms/conversations/{visitorId}/notes', url: () => `/api/vms/conversations/${visitor.id}/notes`, body: () => ({ message: 'A private note' }) },
  { op: 'GET /api/vms/conversations/{visitorId}/context', url: () => `/api/vms/conversations/${visitor.id}/context` },
  { op: 'PATCH /api/vms/conversations/{visitorId}/visitor', url: () => `/api/vms/conversations/${visitor.id}/visitor`, body: () => ({ name: 'Vera Vane' }) },
  { op: 'PUT /api/vms/conversations/{visitorId}/labels', url: () => `/api/vms/conversations/${visitor.id}/labels`, body: () => ({ label_ids: [] }) },
  { op: 'GET /api/vms/widget-language' },
  { op: 'PUT /api/vms/widget-language', body: () => ({ language: 'fr', greetings_by_language: { fr: { initial_greeting: 'Bonjour !' } } }) },
  { op: 'GET /api/widget-settings', as: 'none', url: () => `/api/widget-settings?unique_code=${owner.widgetKey}` },
  { op: 'GET /api/plans', as: 'none', keep: (b) => (plans = Object.fromEntries(b.data.map((p: { name: string; id: number }) => [p.name, p.id]))) },
  { op: 'GET /api/user/subscriptions' },
  { op: 'GET /api/user/subscription' },
  // A paid month of Professional through the sandbox checkout (no provider key in tests).
  {
    op: 'POST /api/initialize-payment',
    body: () => ({ plan_id: plan('Professional') }),
    keep: (b) => Object.assign(ids, { reference: b.reference, checkout: new URL(b.authorization_url).pathname }),
  },
  {
    op: 'GET /api/verify-payment/{reference}',
    before: async () => {
      const paid = await t.app.inject({ method: 'POST', url: `${ids.checkout}/pay`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
      expect(paid.statusCode).toBe(302);
    },
    url: () => `/api/verify-payment/${ids.reference}`,
    keep: (b) => expect(b).toMatchObject({ status: 'success', subscription: { plan_name: 'Professional', payment_reference: ids.reference } }),
  },
  { op: 'POST /api/user/subscription/downgrade', body: () => ({ plan_id: plan('Starter') }), keep: (b) => expect(b.data.scheduled_change.kind).toBe('downgrade') },
  { op: 'DELETE /api/user/subscription/scheduled-change', keep: (b) => expect(b.data.scheduled_change).toBeNull() },
  { op: 'POST /api/user/subscription/cancel', keep: (b) => expect(b.data).toMatchObject({ paid_plan: 'Professional', scheduled_change: { kind: 'cancel' } }) },
  { op: 'DELETE /api/user/subscription/scheduled-change' },
  { op: 'GET /api/vms/integration' },
  { op: 'GET /api/vms/integration-metrics' },
  { op: 'GET /api/vms/triggers' },
  { op: 'POST /api/vms/triggers', body: () => ({ name: 'Pricing help', message: 'Questions about pricing?' }), keep: (b) => (ids.trigger = String(b.data.id)) },
  { op: 'PUT /api/vms/triggers/{id}', url: () => `/api/vms/triggers/${ids.trigger}`, body: () => ({ name: 'Pricing help', message: 'Any question about our prices?' }) },
  { op: 'GET /api/widget/triggers', as: 'none', url: () => `/api/widget/triggers?unique_code=${owner.widgetKey}` },
  { op: 'POST /api/widget/triggers/{id}/fire', as: 'visitor', url: () => `/api/widget/triggers/${ids.trigger}/fire` },
  { op: 'DELETE /api/vms/triggers/{id}', url: () => `/api/vms/triggers/${ids.trigger}` },
  { op: 'POST /api/vms/conversations/{visitorId}/assign', url: () => `/api/vms/conversations/${visitor.id}/assign`, body: () => ({ user_id: owner.user.id }) },
  { op: 'GET /api/vms/visitor' },
  { op: 'GET /api/vms/visitor/countries' },
  { op: 'GET /api/vms/canned-replies' },
  { op: 'POST /api/vms/canned-replies', body: () => ({ title: 'Hi', text: 'Hello {{visitor.name}}', shortcut: 'hi' }), keep: (b) => (ids.canned = String(b.data.id)) },
  { op: 'PATCH /api/vms/canned-replies/{id}', url: () => `/api/vms/canned-replies/${ids.canned}`, body: () => ({ title: 'Hello' }) },
  { op: 'DELETE /api/vms/canned-replies/{id}', url: () => `/api/vms/canned-replies/${ids.canned}` },
  { op: 'GET /api/vms/labels' },
  { op: 'POST /api/chatbot/sources', body: () => ({ url: 'http://127.0.0.1:9/' }), keep: (b) => (ids.site = b.data.id) },
  {
    op: 'POST /api/chatbot/sources/upload',
    form: () => ({ fields: {}, file: { field: 'file', filename: 'faq.csv', contentType: 'text/csv', bytes: Buffer.from('question,answer\nDo you deliver?,Yes: within two days.\n') } }),
    keep: (b) => (ids.faq = b.data.id),
  },
  { op: 'GET /api/chatbot/sources' },
  { op: 'POST /api/chatbot/sources/{id}/refresh', url: () => `/api/chatbot/sources/${ids.faq}/refresh` },
  { op: 'GET /api/chatbot/sources/{id}/passages', url: () => `/api/chatbot/sources/${ids.faq}/passages` },
  { op: 'GET /api/chatbot/source-usage', url: () => `/api/chatbot/source-usage?ids=${ids.faq},${ids.site}` },
  { op: 'DELETE /api/chatbot/sources/{id}', url: () => `/api/chatbot/sources/${ids.site}` },
  {
    op: 'POST /api/widget/messages/{id}/vote',
    as: 'visitor',
    // An assistant's answer in the visitor's conversation.
    before: async () => {
      const db = t.app.db;
      const [c] = await db.select().from(conversations).where(eq(conversations.visitorId, visitor.id));
      const [m] = await db.insert(messages).values({ accountId: c!.accountId, conversationId: c!.id, senderType: 'bot', message: 'Yes: within two days.' }).returning();
      await db.insert(aiAnswers).values({ messageId: m!.id, accountId: c!.accountId, conversationId: c!.id, confidence: 0.9 });
      ids.answer = String(m!.id);
    },
    url: () => `/api/widget/messages/${ids.answer}/vote`,
    body: () => ({ vote: 'helpful' }),
  },
  { op: 'POST /api/widget/handover', as: 'visitor', body: () => ({}) },
  // A reply email's link, traded for a widget token of the same visitor.
  { op: 'POST /api/widget/resume', as: 'none', before: async () => void (ids.link = await signVisitorLink(t.app.db, visitor.id)), body: () => ({ link: ids.link }) },
  // The console assistant (SPEC section 7: api/chatbot/*).
  { op: 'POST /api/chatbot/message', form: () => ({ fields: { message: 'Remember that we deliver within two days' } }) },
  { op: 'POST /api/chatbot/message', form: () => ({ fields: { message: 'Do you deliver?' } }) },
  { op: 'POST /api/chatbot/message', form: () => ({ fields: { feedback: 'helpful' } }) },
  { op: 'GET /api/chatbot/history', keep: (b) => expect(b.data.length).toBeGreaterThanOrEqual(4) },
  { op: 'GET /api/chatbot/insights' },
  { op: 'GET /api/chatbot/settings' },
  { op: 'POST /api/chatbot/settings', body: () => ({ auto_answer_enabled: true, threshold: 0.8 }) },
  { op: 'GET /api/chatbot/knowledge', url: () => '/api/chatbot/knowledge?status=approved', keep: (b) => (ids.knowledge = String(b.data[0].id)) },
  { op: 'PATCH /api/chatbot/knowledge/{id}', url: () => `/api/chatbot/knowledge/${ids.knowledge}`, body: () => ({ answer: 'We deliver within two days, every weekday.' }) },
  {
    op: 'GET /api/chatbot/feedback',
    // An Agent's rating of an answer from that knowledge, waiting for the owner.
    before: async () => {
      const agent = await buildMember(t.app, owner, 'Agent');
      const db = t.app.db;
      const [m] = await db
        .insert(aiChatMessages)
        .values({ accountId: owner.user.account_id, userId: agent.id, senderType: 'bot', content: 'We deliver within two days.', confidenceScore: 0.9, patternId: Number(ids.knowledge) })
        .returning();
      await db.insert(aiFeedback).values({ messageId: m!.id, accountId: owner.user.account_id, value: 'not_helpful', pending: true });
    },
    keep: (b) => (ids.feedback = String(b.data[0].message_id)),
  },
  { op: 'POST /api/chatbot/feedback/{id}', url: () => `/api/chatbot/feedback/${ids.feedback}`, body: () => ({ decision: 'confirm' }) },
  { op: 'POST /api/vms/labels', body: () => ({ name: 'vip', color: '#3b82f6' }), keep: (b) => (ids.label = String(b.data.id)) },
  { op: 'PATCH /api/vms/labels/{id}', url: () => `/api/vms/labels/${ids.label}`, body: () => ({ name: 'VIP' }) },
  { op: 'DELETE /api/vms/labels/{id}', url: () => `/api/vms/labels/${ids.label}` },
  { op: 'GET /api/vms/stats' },
  { op: 'GET /api/vms/storage' },
  { op: 'GET /api/vms/api-keys' },
  { op: 'POST /api/vms/api-keys', body: () => ({ name: 'CRM', scopes: ['conversations:read'] }), keep: (b) => (ids.key = b.data.id) },
  { op: 'DELETE /api/vms/api-keys/{id}', url: () => `/api/vms/api-keys/${ids.key}` },
  { op: 'GET /api/vms/webhooks' },
  { op: 'PATCH /api/vms/webhooks/{id}', url: () => `/api/vms/webhooks/${ids.hook}`, body: () => ({ status: 'paused' }) },
  { op: 'GET /api/vms/webhooks/{id}/deliveries', url: () => `/api/vms/webhooks/${ids.hook}/deliveries`, keep: (b) => (ids.delivery = b.data[0]?.id) },
  { op: 'POST /api/vms/webhooks/{id}/deliveries/{deliveryId}/resend', url: () => `/api/vms/webhooks/${ids.hook}/deliveries/${ids.delivery}/resend` },
  { op: 'DELETE /api/vms/webhooks/{id}', url: () => `/api/vms/webhooks/${ids.hook}` },
  { op: 'GET /api/vms/user/alerts' },
  { op: 'PUT /api/vms/user/alerts', body: () => ({ desktop: true, sound: false }) },
  { op: 'GET /api/vms/widget-settings' },
  { op: 'POST /api/vms/widget-settings', form: () => ({ fields: { name: 'Acme', color: '#112233', email_notifications: '{"newChats":false}' } }) },
  { op: 'POST /api/vms/chatwidget-settings', form: () => ({ fields: { name: 'Acme', title: 'Chat with us', color: '#112233' } }) },
  { op: 'GET /api/vms/greetings' },
  { op: 'POST /api/vms/greetings', body: () => ({ initial_greeting: 'Hi!', follow_up_greeting: 'We reply soon.' }) },
  { op: 'GET /api/vms/account-info' },
  { op: 'POST /api/vms/account-info', body: () => ({ website_url: 'https://example.com', phone_number: '+33123456789', business_location: 'Paris' }) },
  { op: 'GET /api/vms/conversation-settings' },
  { op: 'POST /api/vms/conversation-settings', body: () => ({ time_zone: 'Europe/Paris' }) },
  { op: 'GET /api/vms/business-hours' },
  { op: 'PUT /api/vms/business-hours', body: () => ({ time_zone: 'Europe/Paris', hours: { mon: { open: '09:00', close: '17:00' }, sat: null } }) },
  { op: 'GET /api/vms/me/availability' },
  { op: 'PATCH /api/vms/me/availability', body: () => ({ availability: 'away' }) },
  { op: 'GET /api/vms/team', keep: (b) => (ids.role = String(b.roles.find((r: { name: string }) => r.name === 'Agent').id)) },
  { op: 'GET /api/vms/team/members' },
  { op: 'POST /api/vms/team', body: () => ({ name: 'Max Member', email: (ids.memberEmail = `member-${Date.now()}@example.com`), password: PASSWORD, role_id: Number(ids.role) }), keep: (b) => (ids.member = String(b.data.id)) },
  { op: 'GET /api/vms/users' },
  { op: 'POST /api/vms/team/{id}/assign', url: () => `/api/vms/team/${ids.member}/assign`, body: () => ({ user_ids: [visitor.id] }) },
  { op: 'GET /api/vms/team/{id}/assignments', url: () => `/api/vms/team/${ids.member}/assignments` },
  { op: 'GET /api/vms/user/security' },
  { op: 'POST /api/vms/user/email/verify/resend' },
  { op: 'POST /api/vms/user/two-factor/setup', keep: (b) => (ids.secret = b.data.secret) },
  { op: 'POST /api/vms/user/two-factor/enable', body: () => ({ code: codeOf(ids.secret!) }) },
  { op: 'POST /api/vms/user/two-factor/recovery-codes', body: () => ({ password: PASSWORD }) },
  { op: 'PUT /api/vms/security/settings', body: () => ({ require_two_factor: true }) },
  // The member has no two-factor yet: the sign-in sets it up (the team requires it).
  { op: 'POST /api/vms/login', as: 'none', body: () => ({ email: ids.memberEmail, password: PASSWORD }), keep: (b) => (ids.memberChallenge = b.challenge) },
  { op: 'POST /api/vms/login/2fa/setup', as: 'none', body: () => ({ challenge: ids.memberChallenge }), keep: (b) => (ids.memberSecret = b.data.secret) },
  { op: 'POST /api/vms/login/2fa/enable', as: 'none', body: () => ({ challenge: ids.memberChallenge, code: codeOf(ids.memberSecret!) }) },
  { op: 'POST /api/vms/login', as: 'none', body: () => ({ email: owner.email, password: PASSWORD }), keep: (b) => (ids.challenge = b.challenge) },
  { op: 'POST /api/vms/login/2fa', as: 'none', body: () => ({ challenge: ids.challenge, code: codeOf(ids.secret!, 1) }), keep: (b) => (ids.second = b.token) },
  { op: 'POST /api/vms/logout', as: () => ids.second! },
  { op: 'PUT /api/vms/security/settings', body: () => ({ require_two_factor: false }) },
  { op: 'POST /api/vms/user/two-factor/disable', body: () => ({ password: PASSWORD }) },
  { op: 'GET /api/vms/sessions', keep: (b) => (ids.session = String(b.data.find((s: { current: boolean }) => !s.current).id)) },
  { op: 'DELETE /api/vms/sessions/{id}', url: () => `/api/vms/sessions/${ids.session}` },
  { op: 'POST /api/vms/team/{id}/sign-out', url: () => `/api/vms/team/${ids.member}/sign-out` },
  { op: 'PATCH /api/vms/team/{id}', url: () => `/api/vms/team/${ids.member}`, body: () => ({ status: 'disabled' }) },
  { op: 'DELETE /api/vms/team/{id}', url: () => `/api/vms/team/${ids.member}` },
  { op: 'GET /api/vms/audit-log' },
  { op: 'GET /api/vms/visitor/{id}/export', url: () => `/api/vms/visitor/${visitor.id}/export` },
  { op: 'GET /api/vms/retention' },
  { op: 'PUT /api/vms/retention', body: () => ({ retention_months: 12 }) },
  { op: 'POST /api/vms/password/forgot', as: 'none', body: () => ({ email: owner.email }) },
  { op: 'DELETE /api/vms/visitor/{id}', url: () => `/api/vms/visitor/${visitor.id}` },
  {
    op: 'POST /api/vms/password/reset',
    as: 'none',
    // The emailed link's token (the mail itself is recovery.test.ts's).
    before: async () => void (ids.reset = (await createUserLink(t.app.db, owner.user.id, 'password_reset', 30)).token),
    body: () => ({ token: ids.reset, password: PASSWORD, password_confirmation: PASSWORD }),
  },
  { op: 'PUT /api/vms/password/update', as: () => ids.fresh!, body: () => ({ current: PASSWORD, new: 'An0ther-secret!', confirm: 'An0ther-secret!' }) },
  { op: 'DELETE /api/vms/user/delete', as: () => ids.fresh! },
];

beforeAll(async () => {
  t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true' });
  doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as Doc;
  ajv.addSchema({ $id: 'doc', components: jsonSchemaOf(doc.components) }, 'doc');
  owner = await buildAccount(t.app);
  visitor = await buildChattingVisitor(t.app, owner.widgetKey);
  const fresh = await buildAccount(t.app);
  ids.fresh = fresh.token;
});
afterAll(() => t.close());

function problemsOf(op: string, status: number, body: unknown): string[] {
  const [method, path] = op.split(' ') as [string, string];
  const documented = doc.paths[path]?.[method.toLowerCase()]?.responses[String(status)];
  if (!documented) return [`${op}: answered ${status}, not in the document`];
  const schema = documented.content?.['application/json']?.schema;
  if (!schema) return [`${op} ${status}: no schema documented`];
  const validate = ajv.compile(jsonSchemaOf(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'))) as object);
  return validate(body) ? [] : [`${op} ${status}: ${ajv.errorsText(validate.errors)}`];
}

describe('the route matrix against GET /api/openapi.json', () => {
  it('every operation is called here, and documents a success answer with a JSON schema', () => {
    const called = new Set(CASES.map((c) => c.op));
    const problems: string[] = [];
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(ops)) {
        const op = `${method.toUpperCase()} ${path}`;
        documented.add(op);
        if (!called.has(op)) problems.push(`${op}: not called here`);
        const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
        if (success.length === 0 || success.some(([, r]) => !r.content?.['application/json']?.schema)) problems.push(`${op}: no success schema`);
      }
    }
    for (const op of called) if (!documented.has(op)) problems.push(`${op}: called here, not in the document`);
    expect(problems).toEqual([]);
  });

  it('answers every call with valid input, its body valid against the documented success schema', async () => {
    const problems: string[] = [];
    for (const c of CASES) {
      const [method, path] = c.op.split(' ') as [string, string];
      await c.before?.();
      const token = typeof c.as === 'function' ? c.as() : c.as === 'none' ? undefined : c.as === 'visitor' ? visitor.token : owner.token;
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      let payload: string | Buffer | undefined;
      if (c.form) {
        const f = c.form();
        const mp = multipart(f.fields, f.image ? pngPart() : f.file);
        payload = mp.payload;
        Object.assign(headers, mp.headers);
      } else if (c.body) {
        payload = JSON.stringify(c.body());
        headers['content-type'] = 'application/json';
      }
      const res = await t.app.inject({ method: method as 'GET', url: c.url?.() ?? path, headers, ...(payload !== undefined ? { payload } : {}) });
      let body: unknown;
      try {
        body = res.json();
      } catch {
        problems.push(`${c.op}: ${res.statusCode}, not JSON`);
        continue;
      }
      if (res.statusCode >= 300) {
        problems.push(`${c.op}: ${res.statusCode} ${JSON.stringify(body).slice(0, 200)}`);
        continue;
      }
      problems.push(...problemsOf(c.op, res.statusCode, body));
      c.keep?.(body);
    }
    expect(problems).toEqual([]);
  });
});
