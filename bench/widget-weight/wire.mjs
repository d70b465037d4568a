// What a visitor downloads before the widget panel is usable, measured in Chromium: every
// response from the Parley server (headers + body as sent, Network.loadingFinished's
// encodedDataLength) and every WebSocket frame, from the host page's load until the panel is
// open with its message box. The host page itself is not counted.
// Run: node bench/widget-weight/wire.mjs [--runs=3] (after `npm run build`). Target: <= 16 KB on the wire.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { freePort, ROOT, sleep } from '../lib.mjs';

const TARGET_KB = 16;
/** `--runs=N`: the brotli visit (the figure the target is about) N times, each printed. */
const RUNS = Math.max(1, Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7)) || 1);
for (const built of ['server/dist/index.js', 'widget/dist/widget.js']) {
  if (!fs.existsSync(path.join(ROOT, built))) throw new Error(`${built} is missing: run \`npm run build\` first`);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-wire-'));
const [port, hostPort] = [await freePort(), await freePort()];
const base = `http://127.0.0.1:${port}`;
const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: path.join(tmp, 'data'), LOG_LEVEL: 'warn' };
for (const k of ['DATABASE_URL', 'REDIS_URL', 'SMTP_URL', 'PUBLIC_URL', 'LLM_BASE_URL']) delete env[k];
const server = spawn(process.execPath, ['server/dist/index.js'], { cwd: ROOT, env, stdio: 'inherit' });
let host;
let browser;
try {
  for (let i = 0; ; i++) {
    if (i > 1500 || server.exitCode !== null) throw new Error('the server did not become ready');
    if (await fetch(`${base}/readyz`).then((r) => r.ok, () => false)) break;
    await sleep(200);
  }
  const api = async (method, url, body, token) => {
    const res = await fetch(`${base}${url}`, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: body && JSON.stringify(body) });
    return res.json();
  };
  const password = 'Sup3r-Secret!';
  const { token } = await api('POST', '/api/vms/register', { name: 'Wire Bench', email: `wire-${Date.now()}@example.com`, password, password_confirmation: password });
  const { script } = await api('GET', '/api/vms/integration', undefined, token);
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><h1>Shop</h1>${script}</body></html>`;
  host = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  await new Promise((r) => host.listen(hostPort, '127.0.0.1', r));

  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  const visit = async (acceptEncoding) => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const cdp = await context.newCDPSession(tab);
    await cdp.send('Network.enable');
    if (acceptEncoding) await cdp.send('Network.setExtraHTTPHeaders', { headers: { 'Accept-Encoding': acceptEncoding } });
    const requests = new Map();
    const counted = [];
    cdp.on('Network.requestWillBeSent', (e) => requests.set(e.requestId, { url: e.request.url, method: e.request.method, encoding: '' }));
    cdp.on('Network.responseReceived', (e) => {
      const r = requests.get(e.requestId);
      if (r) r.encoding = Object.entries(e.response.headers).find(([k]) => k.toLowerCase() === 'content-encoding')?.[1] ?? '';
    });
    cdp.on('Network.loadingFinished', (e) => {
      const r = requests.get(e.requestId);
      if (r?.url.startsWith(base)) counted.push({ what: `${r.method} ${r.url.slice(base.length).split('?')[0]}`, encoding: r.encoding, bytes: e.encodedDataLength });
    });
    // WebSocket: the handshake's headers and each frame's payload plus a 2-byte frame header.
    cdp.on('Network.webSocketFrameReceived', (e) => counted.push({ what: 'websocket frame', encoding: '', bytes: e.response.payloadData.length + 2 }));
    cdp.on('Network.webSocketHandshakeResponseReceived', (e) => {
      const head = Object.entries(e.response.headers).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 0);
      counted.push({ what: 'websocket handshake', encoding: '', bytes: head + 40 });
    });
    await tab.goto(`http://127.0.0.1:${hostPort}/`);
    await tab.getByRole('button', { name: 'Open chat' }).click({ timeout: 30_000 });
    await tab.getByRole('dialog').getByRole('textbox', { name: 'Type a message' }).waitFor({ timeout: 30_000 });
    await sleep(500); // frames and answers still in flight when the box appeared
    await context.close();
    return counted;
  };
  const report = (label, counted) => {
    const total = counted.reduce((n, c) => n + c.bytes, 0);
    console.log(label);
    const byWhat = new Map();
    for (const c of counted) {
      const key = `${c.what}${c.encoding ? ` (${c.encoding})` : ''}`;
      const prev = byWhat.get(key) ?? { n: 0, bytes: 0 };
      byWhat.set(key, { n: prev.n + 1, bytes: prev.bytes + c.bytes });
    }
    for (const [what, { n, bytes }] of byWhat) console.log(`  ${what.padEnd(60)} ${String(n).padStart(3)} x  ${(bytes / 1024).toFixed(2).padStart(7)} KB`);
    return total;
  };
  console.log('Widget on the wire in Chromium: responses from the Parley server (headers + body) and WebSocket frames, host page load to panel usable\n');
  const plain = report('Uncompressed (Accept-Encoding: identity, as every response was before compression):', await visit('identity'));
  const gzip = report('Accept-Encoding: gzip, deflate (a browser without brotli):', await visit('gzip, deflate'));
  const brRuns = [];
  for (let i = 0; i < RUNS; i++) brRuns.push(report(`Chromium's own Accept-Encoding (gzip, deflate, br, zstd on https:// and localhost)${RUNS > 1 ? `, run ${i + 1} of ${RUNS}` : ''}:`, await visit()));
  const kbOf = (n) => `${(n / 1024).toFixed(1)} KB`;
  const verdict = (n) => (n <= TARGET_KB * 1024 ? `<= ${TARGET_KB} KB target: ok` : `> ${TARGET_KB} KB target: OVER`);
  const br = Math.max(...brRuns);
  const brFigure = RUNS > 1 ? `${brRuns.map(kbOf).join(', ')} (largest ${verdict(br)})` : `${kbOf(br)} (${verdict(br)})`;
  console.log(`\nbefore the panel is usable: uncompressed ${kbOf(plain)}; gzip ${kbOf(gzip)} (${verdict(gzip)}); brotli ${brFigure}`);
} finally {
  await browser?.close();
  host?.close();
  if (server.exitCode === null) {
    const gone = new Promise((r) => server.once('exit', r));
    process.kill(server.pid, 'SIGTERM');
    await gone;
  }
  fs.rmSync(tmp, { recursive: true, force: true });
}
