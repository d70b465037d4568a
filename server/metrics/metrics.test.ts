import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness.js';
import { buildAccount, call, type TestOwner } from '../test/factories.js';
import { buildVisitor } from '../test/chatFactories.js';
import { connect, connected, listen, next } from '../test/sockets.js';

/** Issue 15: an operator's /metrics, moved by real traffic; docker/'s Prometheus and Grafana files name only real metrics. */
let t: TestApp;
let base: string;
let owner: TestOwner;
beforeAll(async () => {
  t = await createTestApp({ REGISTER_LIMIT_PER_IP: '2' });
  base = await listen(t.app);
  owner = await buildAccount(t.app);
});
afterAll(() => t.close());

const scrape = async () => {
  const res = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
  expect(res.statusCode).toBe(200);
  return res.body;
};

/** The value of the sample `name` whose labels include `labels` (undefined when there is none). */
function sample(body: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of body.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

const eventually = async (check: () => Promise<boolean>, what: string) => {
  for (let i = 0; i < 50; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never: ${what}`);
};

describe('GET /metrics moves with real traffic', () => {
  it('counts a widget socket, a message stored and pushed with its delivery latency, the HTTP route, a 429, and labels every series with the node', async () => {
    const before = await scrape();
    const node = `${(await import('node:os')).hostname()}:${t.config.port}`;
    expect(sample(before, 'parley_sockets_connected', { kind: 'widget', node })).toBe(0);
    expect(sample(before, 'parley_socket_connects_total', { kind: 'widget' })).toBe(0);
    expect(sample(before, 'parley_messages_stored_total', { sender: 'visitor' })).toBeUndefined();

    const visitor = await buildVisitor(t.app, owner.widgetKey);
    const socket = connect(base, { widget_key: owner.widgetKey, visitor_token: visitor.token });
    await connected(socket);
    const pushed = new Promise((resolve) => socket.once('message.created', resolve));
    const sent = await call(t.app, 'POST', '/api/widget/messages', { token: visitor.token, body: { message: 'Hello metrics' } });
    expect(sent.status).toBe(201);
    await pushed;

    const during = await scrape();
    expect(sample(during, 'parley_sockets_connected', { kind: 'widget' })).toBe(1);
    expect(sample(during, 'parley_sockets_connected', { kind: 'console' })).toBe(0);
    expect(sample(during, 'parley_socket_connects_total', { kind: 'widget' })).toBe(1);
    expect(sample(during, 'parley_messages_stored_total', { sender: 'visitor' })).toBe(1);
    expect(sample(during, 'parley_messages_pushed_total')).toBe(1);
    expect(sample(during, 'parley_message_delivery_seconds_count')).toBe(1);
    expect(sample(during, 'parley_message_delivery_seconds_bucket', { le: '+Inf' })).toBe(1);
    expect(sample(during, 'parley_http_request_duration_seconds_count', { method: 'POST', route: '/api/widget/messages', status: '201' })).toBe(1);
    expect(sample(during, 'parley_http_request_duration_seconds_count', { method: 'POST', route: '/api/widget/visitors', status: '201' })).toBe(1);
    expect(sample(during, 'nodejs_eventloop_lag_seconds', { node })).toBeGreaterThanOrEqual(0);
    expect(sample(during, 'parley_event_loop_utilization')).toBeGreaterThan(0);
    expect(sample(during, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(during, 'parley_redis_adapter_up')).toBe(1); // no Redis: one node in memory
    // Every series carries the node label.
    const unlabelled = during.split('\n').filter((l) => l && !l.startsWith('#') && !/node="/.test(l));
    expect(unlabelled).toEqual([]);

    socket.close();
    await eventually(async () => sample(await scrape(), 'parley_socket_disconnects_total', { kind: 'widget' }) === 1, 'disconnect counted');
    expect(sample(await scrape(), 'parley_sockets_connected', { kind: 'widget' })).toBe(0);

    // A rate limit's refusal, by limit: the third sign-up from one IP (limit 2 per hour).
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/vms/register',
        remoteAddress: '203.0.113.9',
        payload: { name: 'Rita', email: `rita-${i}@example.com`, password: 'Sup3r-Secret!', password_confirmation: 'Sup3r-Secret!' },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([201, 201, 429]);
    const after = await scrape();
    expect(sample(after, 'parley_rate_limit_refusals_total', { limit: 'register-ip' })).toBe(1);
    expect(sample(after, 'parley_http_request_duration_seconds_count', { route: '/api/vms/register', status: '429' })).toBe(1);
    expect(sample(after, 'parley_db_pool_waiting')).toBe(0);
    expect(sample(after, 'parley_jobs_pending')).toBeGreaterThanOrEqual(0);
  });

  it("observes each message's delivery ack from the other side (console and widget), once per message, ignoring made-up acks", async () => {
    const visitor = await buildVisitor(t.app, owner.widgetKey);
    const widget = connect(base, { widget_key: owner.widgetKey, visitor_token: visitor.token });
    const agent = connect(base, { token: owner.token });
    await Promise.all([connected(widget), connected(agent)]);
    const ackCount = async (kind: string) => sample(await scrape(), 'parley_message_ack_seconds_count', { kind }) ?? 0;
    const before = { console: await ackCount('console'), widget: await ackCount('widget') };

    // The visitor writes; the agent's console acks on receipt.
    const atAgent = next<{ message: { id: number; created_at: string } }>(agent, 'message.created');
    expect((await call(t.app, 'POST', '/api/widget/messages', { token: visitor.token, body: { message: 'Ack me' } })).status).toBe(201);
    const { message } = await atAgent;
    agent.emit('message.delivered', { id: message.id, created_at: message.created_at });
    await eventually(async () => (await ackCount('console')) === before.console + 1, 'console ack observed');
    // The same message acked again, an ack of a message received an hour ago, and junk: not counted.
    agent.emit('message.delivered', { id: message.id, created_at: message.created_at });
    agent.emit('message.delivered', { id: message.id + 1000, created_at: new Date(Date.now() - 3_600_000).toISOString() });
    agent.emit('message.delivered', { id: 'x', created_at: 'never' });
    agent.emit('message.delivered', null);

    // The agent answers; the visitor's widget acks.
    const atWidget = next<{ message: { id: number; created_at: string; sender_type?: string } }>(widget, 'message.created', (p) => p.message.id > message.id);
    const reply = await call(t.app, 'POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: visitor.id, message: 'Got it' } });
    expect(reply.status).toBe(201);
    const answer = (await atWidget).message;
    widget.emit('message.delivered', { id: answer.id, created_at: answer.created_at });
    await eventually(async () => (await ackCount('widget')) === before.widget + 1, 'widget ack observed');

    const body = await scrape();
    expect(sample(body, 'parley_message_ack_seconds_count', { kind: 'console' })).toBe(before.console + 1);
    // Observed from receipt: well under the 10 s bucket.
    expect(sample(body, 'parley_message_ack_seconds_bucket', { kind: 'console', le: '10' })).toBe(before.console + 1);
    widget.close();
    agent.close();
  });

  it("docker/'s alert rules and Grafana dashboard are valid and name only metrics this node serves", async () => {
    const docker = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docker');
    const scrapeConfig = fs.readFileSync(path.join(docker, 'prometheus/prometheus.yml'), 'utf8');
    expect(scrapeConfig).toMatch(/metrics_path: \/metrics/);
    expect(scrapeConfig).toMatch(/rule_files:/);
    const rules = fs.readFileSync(path.join(docker, 'prometheus/alerts.yml'), 'utf8');
    const alerts = [...rules.matchAll(/- alert: (\w+)/g)].map((m) => m[1]);
    expect(alerts).toEqual(expect.arrayContaining(['ParleyNodeDown', 'ParleyDeliveryP99High', 'ParleyEventLoopLagHigh', 'ParleyJobsFailed', 'ParleyRedisAdapterDown']));
    const ruleExprs = [...rules.matchAll(/expr: (.+)/g)].map((m) => m[1] ?? '');
    const dashboard = JSON.parse(fs.readFileSync(path.join(docker, 'grafana/parley-dashboard.json'), 'utf8')) as { panels: { title: string; targets?: { expr: string }[] }[] };
    const panelExprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((x) => x.expr));
    expect(panelExprs.length).toBeGreaterThanOrEqual(10);
    const names = new Set([...ruleExprs, ...panelExprs].flatMap((e) => e.match(/\b(?:parley|nodejs|process)_[a-z0-9_]+/g) ?? []));
    expect(names.size).toBeGreaterThan(10);
    const body = await scrape();
    const missing = [...names].filter((n) => !new RegExp(`^${n}[{ ]`, 'm').test(body));
    expect(missing).toEqual([]);
  });
});
