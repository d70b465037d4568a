import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount } from '../../test/factories.js';
import { freePort } from '../../test/sockets.js';

/** Issue 11: /metrics was public. A token, its own port, or this machine only. */
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const TOKEN = 'a-long-metrics-token-for-tests';
const metrics = (headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') =>
  t!.app.inject({ method: 'GET', url: '/metrics', headers, remoteAddress });

describe('GET /metrics', () => {
  it('without METRICS_TOKEN or METRICS_PORT answers only this machine, not a peer elsewhere nor a request a local proxy forwards', async () => {
    t = await createTestApp();
    const local = await metrics();
    expect(local.statusCode).toBe(200);
    expect(local.body).toMatch(/^parley_jobs_pending\{node="[^"]+"\} \d+$/m);
    expect(local.body).toMatch(/^parley_outbox_pending\{node="[^"]+"\} 0$/m);
    expect(local.body).toMatch(/^parley_outbox_oldest_pending_seconds\{node="[^"]+"\} 0$/m);
    expect(local.body).toMatch(/^parley_outbox_lost_total\{node="[^"]+"\} 0$/m);
    const message = 'Metrics are served only to this machine: set METRICS_TOKEN or METRICS_PORT to scrape them from elsewhere';
    for (const res of [await metrics({}, '203.0.113.7'), await metrics({ 'x-forwarded-for': '203.0.113.7' }), await metrics({}, '10.0.0.5')]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ message, error: message });
      expect(res.body).not.toContain('parley_');
    }
  });

  it('times the background jobs by job and outcome; counts relayed pushes', { timeout: 60_000 }, async () => {
    t = await createTestApp({ JOBS_WORKERS: 'true' });
    const before = (await metrics()).body;
    expect(before).toMatch(/^# TYPE parley_job_duration_seconds histogram$/m);
    expect(before).toMatch(/^parley_job_duration_seconds_count\{(?=[^}]*job="notify\.chatLimit")(?=[^}]*outcome="done")[^}]*\} 0$/m);
    expect(before).toMatch(/^parley_push_relayed_total\{node="[^"]+"\} 0$/m);
    const owner = await buildAccount(t.app);
    const month = new Date().toISOString().slice(0, 7);
    await t.app.jobs.enqueue('notify.chatLimit', { accountId: owner.user.account_id, month });
    const done = /^parley_job_duration_seconds_count\{(?=[^}]*job="notify\.chatLimit")(?=[^}]*outcome="done")[^}]*\} 1$/m;
    let body = '';
    for (let i = 0; i < 75 && !done.test(body); i++) {
      await new Promise((r) => setTimeout(r, 200));
      body = (await metrics()).body;
    }
    expect(body, body.split('\n').filter((l) => l.startsWith('parley_job')).join('\n')).toMatch(done);
  });

  it('with METRICS_TOKEN answers only the bearer token, from anywhere', async () => {
    t = await createTestApp({ METRICS_TOKEN: TOKEN });
    const tries: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token' }, { authorization: TOKEN }, { authorization: `Bearer ${TOKEN}x` }];
    for (const headers of tries) {
      const res = await metrics(headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(res.json()).toEqual({ message: 'Unauthenticated', error: 'Unauthenticated' });
    }
    const ok = await metrics({ authorization: `Bearer ${TOKEN}` }, '203.0.113.7');
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toMatch(/^parley_outbox_relayed\{node="[^"]+"\} 0$/m);
  });

  it('with METRICS_PORT serves it on that port only (and asks for the token when one is set)', async () => {
    const port = await freePort();
    t = await createTestApp({ METRICS_PORT: String(port), HOST: '127.0.0.1' });
    const onApp = await metrics();
    expect(onApp.statusCode).toBe(404);
    expect(onApp.json()).toEqual({ message: 'Not found', error: 'Not found' });
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^parley_jobs_failed_total\{node="[^"]+"\} 0$/m);
    const other = await fetch(`http://127.0.0.1:${port}/api/vms/user`);
    expect(other.status).toBe(404);
    await t.close();

    t = await createTestApp({ METRICS_PORT: String(port), HOST: '127.0.0.1', METRICS_TOKEN: TOKEN });
    const refused = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ message: 'Unauthenticated', error: 'Unauthenticated' });
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('refuses a short METRICS_TOKEN and a bad METRICS_PORT at start', async () => {
    const { loadConfig } = await import('../../config.js');
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN: must be at least 16 characters/);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT: must be a port number/);
  });
});
