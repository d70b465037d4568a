import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';
import type { TestProject } from 'vitest/node';
import { CHROMIUM_PATH } from './chromium';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Parley server under test, e.g. http://127.0.0.1:41234 */
    baseUrl: string;
    /** A second origin serving plain HTML pages from hostDir (the "customer's website"). */
    hostUrl: string;
    hostDir: string;
    /** The server's DATA_DIR (with SMTP_URL set, no email is written to DATA_DIR/mail). */
    dataDir: string;
    /** The mailbox of the SMTP server the server under test sends through: GET ?to=<address> (support/mail.ts). */
    mailUrl: string;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function waitReady(base: string, child: ChildProcess, logFile: string): Promise<void> {
  // A first embedded start creates its database: on a machine at load 16 that passed 60 s.
  const deadline = Date.now() + 150_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const res = await fetch(`${base}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-4000) : '';
  throw new Error(`The Parley server did not become ready at ${base}/readyz (exit code ${child.exitCode}).\n${log}`);
}

/** The customer's website: a static file server on another port, i.e. another origin. */
function startHostServer(dir: string, port: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const name = path.basename(new URL(req.url ?? '/', 'http://x').pathname) || 'index.html';
    const file = path.join(dir, name);
    if (!fs.existsSync(file)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

/** An email as the SMTP server received it: the envelope's recipients and the raw message. */
interface Received {
  to: string[];
  raw: string;
}

/**
 * A real SMTP server on 127.0.0.1 (smtp-server, as the server suite's test/jobs.ts) that the
 * server under test sends every email through, and a small HTTP mailbox over what it received,
 * so the journeys (in their own worker process) read the emails as delivered.
 */
async function startMailbox(): Promise<{ smtpUrl: string; mailUrl: string; close: () => Promise<void> }> {
  const received: Received[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const smtpPort = (smtp.server.address() as net.AddressInfo).port;
  const mailbox = http.createServer((req, res) => {
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to')?.toLowerCase() ?? '';
    const raws = received.filter((m) => m.to.includes(to)).map((m) => m.raw);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(raws));
  });
  await new Promise<void>((resolve) => mailbox.listen(0, '127.0.0.1', resolve));
  const mailPort = (mailbox.address() as net.AddressInfo).port;
  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    mailUrl: `http://127.0.0.1:${mailPort}/`,
    close: async () => {
      await new Promise<void>((r) => mailbox.close(() => r()));
      await new Promise<void>((r) => smtp.close(() => r()));
    },
  };
}

export default async function setup(project: TestProject) {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is missing at ${CHROMIUM_PATH}: the browser journeys need it. Install it with \`apt-get install chromium\` (.ci/run does this).`);
  }
  for (const built of ['server/dist/index.js', 'client/dist/index.html', 'widget/dist/widget.js']) {
    if (!fs.existsSync(path.join(REPO, built))) {
      throw new Error(`${built} is missing: build first with \`npx turbo run build\` (turbo's test task does it).`);
    }
  }

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-e2e-'));
  const dataDir = path.join(tmp, 'data');
  const hostDir = path.join(tmp, 'host');
  fs.mkdirSync(hostDir, { recursive: true });
  const logFile = path.join(tmp, 'server.log');
  // The host page's server takes its port now (any free one): a port only looked up here and bound
  // after the Parley server's start could meanwhile be taken as another connection's local port.
  const host = await startHostServer(hostDir, 0);
  const hostPort = (host.address() as net.AddressInfo).port;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const mail = await startMailbox();

  // The production start (`node server/dist/index.js`) on embedded PGlite, the payment sandbox
  // and no outside services: every optional service variable is removed from the environment.
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'SMTP_URL', 'PUBLIC_URL', 'PAYSTACK_SECRET_KEY', 'PAYSTACK_BASE_URL', 'LLM_BASE_URL', 'LLM_API_KEY', 'LLM_MODEL', 'CONSOLE_ORIGINS', 'NODE_OPTIONS', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID']) delete env[k];
  Object.assign(env, {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // Every journey signs up and in from 127.0.0.1: lift the per-IP limits above the suite's needs.
    LOGIN_LIMIT_PER_IP: '1000',
    LOGIN_LIMIT_PER_EMAIL: '100',
    REGISTER_LIMIT_PER_IP: '1000',
    WIDGET_NEW_VISITORS_PER_IP: '10000',
    WIDGET_LIMIT_PER_IP: '100000',
    // Journeys send from one address and a visitor writes several messages at once: bursts out of the way.
    WIDGET_BURST_PER_IP: '100000',
    WIDGET_BURST_PER_VISITOR: '1000',
    WIDGET_BURST_PER_KEY: '100000',
    WIDGET_NEW_VISITORS_BURST_PER_IP: '10000',
    // The paging journeys open 200 chats of one account in seconds, far past a real shop's pace.
    WIDGET_NEW_CHATS_PER_ACCOUNT: '100000',
    WIDGET_NEW_CHATS_BURST: '10000',
    // ... ten at a time: they wait their turn in the account's write lane (its share of the node
    // is unchanged) instead of being refused after 2 s when a busy CI machine slows each write.
    WIDGET_WRITE_WAIT_MS: '30000',
    // As behind one reverse proxy in production: lets a journey give a visitor a public IP (country).
    TRUST_PROXY: '1',
    // Agent replies to away visitors are emailed after this wait (the reply-email journey).
    VISITOR_REPLY_BATCH_SECONDS: '3',
    // Webhook journeys deliver to a receiver on 127.0.0.1 (the SSRF guard refuses loopback otherwise).
    OUTBOUND_ALLOW_PRIVATE: 'true',
    // Every email goes through the real SMTP server above (journeys read it with support/mail.ts).
    SMTP_URL: mail.smtpUrl,
    // Owners verify through the mailed link (on by default with SMTP_URL; said here all the same).
    EMAIL_VERIFICATION: 'true',
  });
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['server/dist/index.js'], { cwd: REPO, env, stdio: ['ignore', out, out] });
  try {
    await waitReady(base, child, logFile);
  } catch (e) {
    child.kill('SIGKILL');
    await mail.close();
    host.close();
    throw e;
  }

  project.provide('baseUrl', base);
  project.provide('hostUrl', `http://127.0.0.1:${hostPort}`);
  project.provide('hostDir', hostDir);
  project.provide('dataDir', dataDir);
  project.provide('mailUrl', mail.mailUrl);

  return async () => {
    await new Promise<void>((r) => host.close(() => r()));
    if (child.exitCode === null && child.pid) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      process.kill(child.pid, 'SIGTERM');
      const timer = setTimeout(() => child.pid && child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await mail.close();
    fs.closeSync(out);
    if (process.env.E2E_KEEP_TMP) console.log(`e2e temp dir kept: ${tmp}`);
    else fs.rmSync(tmp, { recursive: true, force: true });
  };
}
