import type { FastifyInstance } from 'fastify';
import net from 'node:net';
import { io, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createTestApp, type TestApp } from './harness.js';

/** Base URL of an app listening on a random local port. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  return `http://127.0.0.1:${addr.port}`;
}

export function connect(base: string, auth: Record<string, string>, opts: { origin?: string } = {}): Socket {
  return io(base, {
    auth,
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    ...(opts.origin ? { extraHeaders: { origin: opts.origin } } : {}),
  });
}

export function connected(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.connected) return resolve();
    socket.once('connect', () => resolve());
    socket.once('connect_error', (err) => reject(err));
  });
}

/** The next `event` on the socket (optionally the first matching `where`), or a timeout error. */
export function next<T = any>(socket: Socket, event: string, where: (p: T) => boolean = () => true, ms = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.off(event, handler);
      reject(new Error(`timed out waiting for ${event}`));
    }, ms);
    const handler = (payload: T) => {
      if (!where(payload)) return;
      clearTimeout(timer);
      socket.off(event, handler);
      resolve(payload);
    };
    socket.on(event, handler);
  });
}

/** Resolves if `event` does NOT arrive within ms. */
export function silence(socket: Socket, event: string, ms = 400): Promise<void> {
  return new Promise((resolve, reject) => {
    const handler = () => reject(new Error(`unexpected ${event}`));
    socket.on(event, handler);
    setTimeout(() => {
      socket.off(event, handler);
      resolve();
    }, ms);
  });
}

export function emitAck<T = any>(socket: Socket, event: string, payload: unknown, ms = 5000): Promise<T> {
  return socket.timeout(ms).emitWithAck(event, payload) as Promise<T>;
}

/** A free local TCP port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * The sockets a test file opens, closed after each test (registers its own afterEach):
 * `const track = socketTracker(); const s = track(connect(...));`
 */
export function socketTracker(): <S extends Socket>(s: S) => S {
  const open: Socket[] = [];
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  return (s) => {
    open.push(s);
    return s;
  };
}

export interface LiveTestApp extends TestApp {
  /** The app's base URL on its random local port. */
  readonly base: string;
  /** Closes the socket after the current test. */
  track<S extends Socket>(s: S): S;
}

/**
 * The real app on a fresh database, listening on a local port, for a test file that opens
 * sockets: started before the file's tests, its sockets closed after each test, closed after
 * the file (registers its own hooks; read its fields inside hooks and tests).
 */
export function liveTestApp(env: Record<string, string> = {}): LiveTestApp {
  let test: TestApp | undefined;
  let base = '';
  const track = socketTracker();
  beforeAll(async () => {
    test = await createTestApp(env);
    base = await listen(test.app);
  });
  afterAll(() => test?.close());
  const started = (): TestApp => {
    if (!test) throw new Error('liveTestApp: read it inside a hook or a test');
    return test;
  };
  return {
    get app() {
      return started().app;
    },
    get config() {
      return started().config;
    },
    get database() {
      return started().database;
    },
    get dataDir() {
      return started().dataDir;
    },
    get base() {
      started();
      return base;
    },
    close: () => started().close(),
    track,
  };
}
