import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../services/secrets.js';
import { createTestApp, type TestApp } from '../test/harness.js';
import { requestToken } from './auth.js';

/** CORS answers (app.ts): the widget's calls from any page, the console's from its own origins only. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ CONSOLE_ORIGINS: 'https://console.example' });
});
afterAll(async () => {
  await t.close();
});

const preflight = (url: string, origin: string) =>
  t.app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });

describe('CORS', () => {
  it("a widget call's preflight from any page is allowed, with the methods, headers and max-age", async () => {
    const res = await preflight('/api/widget/messages?cursor=x', 'https://shop.example');
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://shop.example');
    expect(res.headers['access-control-allow-methods']).toBe('GET, POST, PUT, PATCH, DELETE');
    expect(res.headers['access-control-allow-headers']).toBe('Authorization, Content-Type');
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers.vary).toMatch(/origin/i);
  });

  it("a console call is allowed from the console's origins only", async () => {
    const ok = await preflight('/api/vms/user', 'https://console.example');
    expect(ok.statusCode).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe('https://console.example');
    expect(ok.headers['access-control-allow-methods']).toBe('GET, POST, PUT, PATCH, DELETE');
    const other = await t.app.inject({ method: 'GET', url: '/api/vms/user', headers: { origin: 'https://shop.example' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const otherPreflight = await preflight('/api/vms/user', 'https://shop.example');
    expect(otherPreflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(otherPreflight.headers['access-control-allow-methods']).toBeUndefined();
  });
});

describe('requestToken', () => {
  const req = (authorization?: string) => ({ headers: authorization === undefined ? {} : { authorization } }) as IncomingMessage;

  it("reads a request's bearer token and hashes it once: later asks get the same answer", () => {
    const r = req('Bearer abc123');
    const first = requestToken(r);
    expect(first).toEqual({ token: 'abc123', hash: hashToken('abc123') });
    expect(requestToken(r)).toBe(first);
    // Per request: another request with another token gets its own.
    expect(requestToken(req('Bearer other'))?.hash).toBe(hashToken('other'));
  });

  it('has none without a bearer header', () => {
    expect(requestToken(req())).toBeUndefined();
    expect(requestToken(req('Basic abc'))).toBeUndefined();
  });
});
