// Soak bench (issue 16, "Open all day"): a compressed day of chats through ONE console tab in
// Debian's Chromium, with a network cut (reconnect) at a third and a server restart at a half,
// printing the tab's JS heap and DOM node count and the server's RSS over time, then checking
// that the tab is live and missed nothing. Everything on 127.0.0.1; not part of CI.
//
// Run from the repository root after `npx turbo run build`:
//   node bench/soak/run.mjs [--minutes 1] [--conversations 100] [--messages 2000] [--sample 5]
// The issue's full day: --minutes 10 --conversations 500 --messages 20000 (targets: heap <= 150 MB
// at the end, no growth in the last third).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, freePort, sleep } from '../lib.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const MINUTES = arg('minutes', 1);
const CONVERSATIONS = arg('conversations', 100);
const MESSAGES = arg('messages', 2000);
const SAMPLE_S = arg('sample', 5);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'parley-soak-'));
const logFile = path.join(dataDir, 'server.log');
const t0 = Date.now();
const elapsed = () => ((Date.now() - t0) / 1000).toFixed(0).padStart(4);

let server;
async function startServer() {
  const out = fs.openSync(logFile, 'a');
  const env = { ...process.env };
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'SMTP_URL', 'PUBLIC_URL', 'NODE_OPTIONS']) delete env[k];
  Object.assign(env, {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    TRUST_PROXY: '1',
    WIDGET_NEW_VISITORS_PER_IP: '100000',
    WIDGET_LIMIT_PER_IP: '1000000',
    WIDGET_LIMIT_PER_VISITOR: '1000000',
    WIDGET_LIMIT_PER_KEY: '1000000',
    // A compressed day opens its chats far faster than a day would: the new-chat budget out of the way.
    WIDGET_NEW_CHATS_PER_ACCOUNT: '10000000',
    WIDGET_NEW_CHATS_BURST: '10000000',
    REGISTER_LIMIT_PER_IP: '1000',
    LOGIN_LIMIT_PER_IP: '1000',
  });
  server = spawn(process.execPath, ['server/dist/index.js'], { cwd: ROOT, env, stdio: ['ignore', out, out] });
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) return;
    } catch {}
    await sleep(200);
  }
  throw new Error(`server not ready; see ${logFile}`);
}
async function stopServer() {
  if (!server || server.exitCode !== null) return;
  const gone = new Promise((r) => server.once('exit', r));
  process.kill(server.pid, 'SIGTERM');
  const t = setTimeout(() => server.exitCode === null && process.kill(server.pid, 'SIGKILL'), 10_000);
  await gone;
  clearTimeout(t);
}
const serverRssMb = () => {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1]);
    return kb / 1024;
  } catch {
    return Number.NaN;
  }
};

async function api(method, url, { token, body, form, ip } = {}) {
  const headers = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(ip ? { 'x-forwarded-for': ip } : {}) };
  let payload;
  if (form) payload = form;
  else if (body) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(`${base}${url}`, { method, headers, body: payload });
  const json = await res.json().catch(() => ({}));
  if (res.status >= 400) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
  return json;
}
const formOf = (fields) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
};

let browser;
try {
  await startServer();
  const email = `soak-${Date.now()}@bench.example.com`;
  const reg = await api('POST', '/api/vms/register', { body: { name: 'Soak Owner', email, password: 'Soak-pass-1!', password_confirmation: 'Soak-pass-1!' } });
  const token = reg.token;
  const script = (await api('GET', '/api/vms/integration', { token })).script;
  const key = /data-widget="([^"]+)"/.exec(script)[1];
  // Visitors from distinct addresses, as real visitors come (PRODUCT.md section 11).
  const ipOf = (i) => `127.${1 + Math.floor(i / 65000)}.${Math.floor(i / 250) % 250}.${1 + (i % 250)}`;
  const visitors = [];
  for (let i = 0; i < CONVERSATIONS; i++) {
    const v = await api('POST', '/api/widget/visitors', { body: { unique_code: key, name: `Soak ${i}` }, ip: ipOf(i) });
    visitors.push({ id: v.data.visitor_id, token: v.data.visitor_token, ip: ipOf(i) });
  }

  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.addInitScript((t) => localStorage.setItem('auth_token', t), token);
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(`${base}/conversations`);
  await page.getByText('Live: new messages appear as they arrive').first().waitFor({ timeout: 60_000 });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');

  const samples = [];
  const sample = async (note = '') => {
    await cdp.send('HeapProfiler.collectGarbage').catch(() => {});
    const { metrics } = await cdp.send('Performance.getMetrics');
    const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]));
    const s = { t: (Date.now() - t0) / 1000, heapMb: m.JSHeapUsedSize / 1048576, nodes: m.Nodes, rssMb: serverRssMb(), sent };
    samples.push(s);
    console.log(`[${elapsed()}s] heap ${s.heapMb.toFixed(1)} MB  DOM nodes ${s.nodes}  server RSS ${s.rssMb.toFixed(0)} MB  messages sent ${sent}${note ? `  (${note})` : ''}`);
  };

  const durationMs = MINUTES * 60_000;
  const start = Date.now();
  let sent = 0;
  let last = null;
  let cutDone = false;
  let restartDone = false;
  let nextSample = start;
  let opened = false;
  while (sent < MESSAGES) {
    if (!opened && sent >= CONVERSATIONS) {
      // Open one conversation, as an agent would: its thread grows too.
      opened = true;
      await page.getByRole('list', { name: 'Conversation list' }).getByRole('button', { name: /Soak 0\b/ }).first().click({ timeout: 5000 }).catch(() => {});
    }
    const due = Math.floor(((Date.now() - start) / durationMs) * MESSAGES);
    if (sent >= due) {
      await sleep(20);
    } else {
      const v = visitors[sent % CONVERSATIONS];
      const text = `soak message ${sent}`;
      try {
        if (sent % 5 === 4) await api('POST', '/api/vms/messages', { token, form: formOf({ visitor_id: v.id, message: `reply ${sent}` }) });
        else await api('POST', '/api/widget/messages', { token: v.token, form: formOf({ message: text }), ip: v.ip });
        last = { visitor: v, text: sent % 5 === 4 ? `reply ${sent}` : text };
        sent++;
      } catch (e) {
        if (!restartDone || server.exitCode !== null) throw e;
        await sleep(200); // the restart: retry once the node is back
      }
    }
    const progress = (Date.now() - start) / durationMs;
    if (!cutDone && progress >= 1 / 3) {
      cutDone = true;
      await sample('network cut for 5 s');
      await context.setOffline(true);
      await sleep(5000);
      await context.setOffline(false);
    }
    if (!restartDone && progress >= 1 / 2) {
      restartDone = true;
      await sample('server restart');
      await stopServer();
      await startServer();
    }
    if (Date.now() >= nextSample) {
      nextSample = Date.now() + SAMPLE_S * 1000;
      await sample();
    }
  }
  // Settle, then check: live, and the newest message is what the list shows first.
  await sleep(3000);
  await sample('end');
  const live = (await page.getByText('Live: new messages appear as they arrive').count()) > 0;
  const reconnecting = (await page.getByText('Reconnecting...').count()) > 0;
  const firstPreview = await page.locator('.conv-preview').first().textContent().catch(() => '');
  const heldLast = Boolean(last && firstPreview?.includes(last.text));

  const third = samples.filter((s) => s.t >= samples.at(-1).t * (2 / 3));
  const growth = third.length >= 2 ? third.at(-1).heapMb - third[0].heapMb : Number.NaN;
  console.log(`\n${sent} messages over ${CONVERSATIONS} conversations in ${MINUTES} min, one reconnect, one server restart.`);
  console.log(`Tab heap at the end ${samples.at(-1).heapMb.toFixed(1)} MB (target <= 150), change over the last third ${growth.toFixed(1)} MB; DOM nodes ${samples.at(-1).nodes}; server RSS ${samples.at(-1).rssMb.toFixed(0)} MB.`);
  console.log(`Socket live at the end: ${live && !reconnecting}; newest message first in the list: ${heldLast}; page errors: ${pageErrors.length}.`);
} finally {
  await browser?.close().catch(() => {});
  await stopServer().catch(() => {});
  await fsp.rm(dataDir, { recursive: true, force: true });
}
