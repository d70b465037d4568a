import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../test/harness.js';
import { registerWebApp } from './webApp.js';

let dir: string;
const apps: FastifyInstance[] = [];
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-webapp-'));
  await fs.mkdir(path.join(dir, 'client'));
  await fs.writeFile(path.join(dir, 'client', 'index.html'), '<!doctype html><div id="root"></div>');
});
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await fs.rm(dir, { recursive: true, force: true });
});

async function consoleApp(env: Record<string, string> = {}, trustProxy = false): Promise<FastifyInstance> {
  const app = Fastify({ trustProxy });
  app.decorate('config', testConfig(dir, env));
  await registerWebApp(app, { client: path.join(dir, 'client'), widget: path.join(dir, 'no-widget') });
  apps.push(app);
  return app;
}

const connectSrc = (csp: string | undefined) => /connect-src ([^;]*)/.exec(csp ?? '')?.[1]?.split(' ');

describe('the console Content-Security-Policy', () => {
  it('lets the console connect to its own origin only, never ws:/wss: to any host', async () => {
    const app = await consoleApp();
    const res = await app.inject({ method: 'GET', url: '/dashboard', headers: { host: 'chat.example.com:8080' } });
    expect(res.statusCode).toBe(200);
    expect(connectSrc(res.headers['content-security-policy'] as string)).toEqual(["'self'", 'ws://chat.example.com:8080']);
  });

  it('behind TLS and a proxy: wss:// of the host, plus PUBLIC_URL over https and wss', async () => {
    const app = await consoleApp({ PUBLIC_URL: 'https://parley.example.org/' }, true);
    const res = await app.inject({ method: 'GET', url: '/settings', headers: { host: 'node-a:3000', 'x-forwarded-proto': 'https' } });
    expect(connectSrc(res.headers['content-security-policy'] as string)).toEqual([
      "'self'",
      'wss://node-a:3000',
      'https://parley.example.org',
      'wss://parley.example.org',
    ]);
  });

  it('a Host header that could break the header value is left out', async () => {
    const app = await consoleApp();
    const res = await app.inject({ method: 'GET', url: '/dashboard', headers: { host: "evil.example; script-src 'unsafe-inline'" } });
    expect(connectSrc(res.headers['content-security-policy'] as string)).toEqual(["'self'"]);
    expect(res.headers['content-security-policy']).toContain("script-src 'self';");
  });
});
