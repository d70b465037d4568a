import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pollingPipe } from './polling.js';
import { MiniSocket } from './socket.js';

/** The long-polling chunk, handed over as the built widget fetches it (lazy.ts). */
const polling = async () => pollingPipe;

/** A real Socket.IO server (the library the Parley server runs), so the widget's wire format is checked against it. */
let http: HttpServer;
let io: Server;
let url: string;
let transports: string[];

beforeEach(async () => {
  http = createServer();
  io = new Server(http, { path: '/socket.io', cors: { origin: true }, pingInterval: 300, pingTimeout: 400 });
  transports = [];
  io.use((socket, next) => {
    if ((socket.handshake.auth as { token?: string }).token !== 'good') {
      const err = Object.assign(new Error('Unauthorized'), { data: { status: 401 } });
      return next(err);
    }
    transports.push(socket.conn.transport.name);
    next();
  });
  io.on('connection', (socket) => {
    socket.on('echo', (data: unknown, ack: (r: unknown) => void) => ack({ got: data }));
    socket.on('shout', (data: string) => socket.emit('heard', `${data}!`));
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});

afterEach(async () => {
  vi.unstubAllGlobals();
  await new Promise<void>((r) => io.close(() => r()));
});

/** A WebSocket a proxy blocks: it never opens and closes with an error. */
class BlockedWebSocket {
  static tried = 0;
  onclose?: () => void;
  onerror?: () => void;
  onmessage?: unknown;
  constructor() {
    BlockedWebSocket.tried++;
    setTimeout(() => {
      this.onerror?.();
    }, 5);
  }
  send(): void {}
  close(): void {
    setTimeout(() => this.onclose?.(), 0);
  }
}

const until = async (ok: () => boolean, ms = 3000): Promise<void> => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('MiniSocket over long-polling', () => {
  it('without WebSocket in the browser, connects by polling: acks, server events and pings keep it alive', async () => {
    vi.stubGlobal('WebSocket', undefined);
    const s = new MiniSocket(url, () => ({ token: 'good' }), polling);
    await until(() => s.connected);
    expect(s.transport).toBe('polling');
    expect(transports).toEqual(['polling']);
    await expect(s.request('echo', { text: 'é ✓ \u001e' })).resolves.toEqual({ got: { text: 'é ✓ \u001e' } });
    const heard: string[] = [];
    s.on('heard', (d: string) => heard.push(d));
    // Several frames written at once go out in order (one POST at a time, the rest batched).
    for (const w of ['a', 'b', 'c']) s.emit('shout', w);
    await until(() => heard.length === 3);
    expect(heard).toEqual(['a!', 'b!', 'c!']);
    // Past several ping intervals (300 ms + 400 ms timeout) the session is still alive: pongs are sent.
    const dropped = vi.fn();
    s.on('disconnect', dropped);
    await new Promise((r) => setTimeout(r, 1500));
    expect(dropped).not.toHaveBeenCalled();
    await expect(s.request('echo', 1)).resolves.toEqual({ got: 1 });
    s.close();
    await until(() => io.of('/').sockets.size === 0);
  });

  it('when the WebSocket is blocked on the way, falls back to polling at once', async () => {
    BlockedWebSocket.tried = 0;
    vi.stubGlobal('WebSocket', BlockedWebSocket);
    const started = Date.now();
    const s = new MiniSocket(url, () => ({ token: 'good' }), polling);
    await until(() => s.connected);
    // No backoff wait before the fallback (the first retry would be 0.5-1 s).
    expect(Date.now() - started).toBeLessThan(500);
    expect(BlockedWebSocket.tried).toBe(1);
    expect(transports).toEqual(['polling']);
    s.close();
  });

  it('a refused handshake over polling is reported with its status and not retried (401)', async () => {
    vi.stubGlobal('WebSocket', undefined);
    const s = new MiniSocket(url, () => ({ token: 'bad' }), polling);
    const errors: { message: string; data?: { status?: number } }[] = [];
    s.on('connect_error', (e: { message: string; data?: { status?: number } }) => errors.push(e));
    await until(() => errors.length > 0);
    expect(errors[0]).toMatchObject({ message: 'Unauthorized', data: { status: 401 } });
    await new Promise((r) => setTimeout(r, 1200));
    expect(s.connected).toBe(false);
    expect(errors.filter((e) => e.message === 'Unauthorized')).toHaveLength(1);
  });

  it('when the server drops the session, reconnects by polling and says so', async () => {
    vi.stubGlobal('WebSocket', undefined);
    const s = new MiniSocket(url, () => ({ token: 'good' }), polling);
    const events: string[] = [];
    s.on('connect', () => events.push('connect'));
    s.on('disconnect', () => events.push('disconnect'));
    await until(() => s.connected);
    for (const socket of io.of('/').sockets.values()) socket.conn.close(); // transport closed, not a server "disconnect" packet
    await until(() => events.length === 3, 4000);
    expect(events).toEqual(['connect', 'disconnect', 'connect']);
    expect(transports).toEqual(['polling', 'polling']);
    s.close();
  });

  it('when polling fails as well (server refusing: draining), the next attempt tries WebSocket again', async () => {
    BlockedWebSocket.tried = 0;
    vi.stubGlobal('WebSocket', BlockedWebSocket);
    // engine.io refuses every new session, as a draining node does.
    (io.engine as unknown as { opts: { allowRequest: (r: unknown, fn: (e: string, ok: boolean) => void) => void } }).opts.allowRequest = (_r, fn) => fn('draining', false);
    const s = new MiniSocket(url, () => ({ token: 'good' }), polling);
    // A second WebSocket try (it stayed on polling before the fix: one try only).
    await until(() => BlockedWebSocket.tried >= 2, 3000);
    expect(s.connected).toBe(false);
    s.close();
  });
});
