import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './harness.js';
import { buildAccount, type TestOwner } from './factories.js';
import { buildVisitor, type TestVisitor } from './chatFactories.js';
import { rowsOf } from '../db/client.js';

/**
 * Property: whatever junk reaches the public widget calls and the auth calls, the answer is a
 * 4xx in the envelope (never a 5xx, never a stack trace) and nothing is stored.
 */
let t: TestApp;
let owner: TestOwner;
let visitor: TestVisitor;
beforeAll(async () => {
  t = await createTestApp();
  owner = await buildAccount(t.app);
  visitor = await buildVisitor(t.app, owner.widgetKey);
});
afterAll(() => t.close());

async function rowCounts(): Promise<Record<string, number>> {
  const res = await t.database.db.execute(sql`
    select (select count(*) from users)::int as users, (select count(*) from accounts)::int as accounts,
           (select count(*) from visitors)::int as visitors, (select count(*) from messages)::int as messages,
           (select count(*) from conversations)::int as conversations, (select count(*) from widget_loads)::int as widget_loads,
           (select count(*) from auth_tokens)::int as auth_tokens`);
  return rowsOf<Record<string, number>>(res)[0]!;
}

const ROUTES = [
  { method: 'POST', url: '/api/vms/register' },
  { method: 'POST', url: '/api/vms/login' },
  { method: 'POST', url: '/api/widget/visitors' },
  { method: 'POST', url: '/api/widget/events' },
  { method: 'POST', url: '/api/widget/messages', visitor: true },
  { method: 'PATCH', url: '/api/widget/visitor', visitor: true },
  { method: 'POST', url: '/api/widget/offline', visitor: true },
] as const;

// Junk that keeps a field's shape but not its sense: wrong types, SQL, HTML, huge, control characters.
const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom("' OR 1=1 --", '<script>alert(1)</script>', '\u0000', '../../etc/passwd', '%00', '{"$ne":null}', 'a'.repeat(6000)),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);
const fieldNames = fc.constantFrom('name', 'email', 'password', 'password_confirmation', 'unique_code', 'load_id', 'kind', 'message', 'client_id', 'page_url', 'image', '__proto__', 'constructor');
const body = fc.oneof(
  fc.dictionary(fieldNames, nasty, { maxKeys: 6 }).map((o) => ({ type: 'json' as const, payload: JSON.stringify(o) })),
  fc.jsonValue().map((v) => ({ type: 'json' as const, payload: JSON.stringify(v) })),
  fc.string().map((s) => ({ type: 'json' as const, payload: s })),
  fc.uint8Array({ maxLength: 200 }).map((b) => ({ type: 'bytes' as const, payload: Buffer.from(b) })),
);
const contentType = fc.constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=xyz', 'application/x-www-form-urlencoded', 'application/json; charset=latin1');

describe('junk at the public and auth calls', () => {
  it('answers 4xx in the envelope and stores nothing', async () => {
    const before = await rowCounts();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), body, contentType, fc.boolean(), async (route, b, type, withToken) => {
        const res = await t.app.inject({
          method: route.method,
          url: route.url,
          headers: {
            'content-type': type,
            ...('visitor' in route && withToken ? { authorization: `Bearer ${visitor.token}` } : {}),
          },
          payload: b.payload,
        });
        expect(res.statusCode, `${route.method} ${route.url} ${res.body}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, `${route.method} ${route.url} ${res.body}`).toBeLessThan(500);
        const env = res.json() as { message?: unknown; error?: unknown };
        expect(typeof env.message).toBe('string');
        expect(env.error).toBe(env.message);
        expect(res.body).not.toMatch(/at .*\.(ts|js):\d+|SELECT|INSERT|syntax error/i);
      }),
      { numRuns: 300, seed: 20261122 },
    );
    expect(await rowCounts()).toEqual(before);
  });

  it('answers junk query strings on the public settings call with 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), async (code) => {
        const res = await t.app.inject({ method: 'GET', url: `/api/widget-settings?unique_code=${encodeURIComponent(code)}` });
        expect(res.statusCode).toBeGreaterThanOrEqual(400);
        expect(res.statusCode).toBeLessThan(500);
      }),
      { numRuns: 100, seed: 7 },
    );
  });
});
