/**
 * A minimal Socket.IO (protocol v5 over Engine.IO v4) client: text events, acks, ping/pong,
 * connect errors and reconnects with backoff. It speaks the same wire protocol as
 * socket.io-client (default namespace) at a fraction of its size (socket.io-client alone would
 * take half the widget's 25 KB budget), over one of two transports:
 * - WebSocket, tried first;
 * - Engine.IO's HTTP long-polling (a GET held open until the server has packets, a POST per
 *   batch sent), used when the browser has no WebSocket or a WebSocket never opened (a proxy or
 *   an antivirus blocking the upgrade). Once polling worked, reconnects stay on polling; when
 *   polling fails as well (server down or draining), the next attempt starts with WebSocket again.
 * When both fail the chat falls back to the REST calls with 10 s polling.
 */
import { loadFeature } from './lazy.js';

type Handler = (data: never) => void;

/** 2^5 s > 30 s: the longest backoff. */
const MAX_BACKOFF_STEP = 5;
/** How long a transport may take to say Engine.IO's open before it counts as blocked. */
const OPEN_TIMEOUT_MS = 5000;

export interface SocketEvents {
  connect: () => void;
  disconnect: () => void;
  /**
   * The server refused the handshake (bad visitor token: data.status 401, never retried; too many
   * sockets for this visitor or address: 429, retried at the longest backoff while the chat polls).
   */
  connect_error: (err: { message: string; data?: { status?: number } }) => void;
}

/** One Engine.IO connection: frames out, frames in, one `onEnd` when it is over. */
export interface Pipe {
  send(frame: string): void;
  close(): void;
}
export type PipeFactory = (url: string, onFrame: (f: string) => void, onEnd: () => void) => Pipe;

/** The long-polling transport (polling.ts) is its own chunk, fetched only when a WebSocket cannot be used. */
const lazyPolling = (url: string): Promise<PipeFactory> => loadFeature(url, 'polling').then((m) => m.pollingPipe);

function webSocketPipe(url: string, onFrame: (f: string) => void, onEnd: () => void): Pipe {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`);
  ws.onmessage = (e) => onFrame(String(e.data));
  ws.onclose = onEnd;
  ws.onerror = () => ws.close();
  return { send: (f) => ws.send(f), close: () => ws.close() };
}

export class MiniSocket {
  connected = false;
  /** The transport in use (or last tried). */
  transport: 'websocket' | 'polling' = typeof WebSocket === 'undefined' ? 'polling' : 'websocket';
  private pipe?: Pipe;
  private opened = false;
  /** On polling because a WebSocket failed in this round of attempts (not yet proven by a poll that opened). */
  private fellBack = false;
  private handlers = new Map<string, Handler[]>();
  private acks = new Map<number, (data: unknown) => void>();
  private nextAck = 0;
  private attempts = 0;
  private closed = false;
  private pingTimer?: ReturnType<typeof setTimeout>;
  private retryTimer?: ReturnType<typeof setTimeout>;
  private hintMs?: number;

  constructor(
    private readonly url: string,
    private readonly auth: () => object,
    /** Where the long-polling transport comes from (its lazily loaded chunk; tests hand it over). */
    private readonly polling: (url: string) => Promise<PipeFactory> = lazyPolling,
  ) {
    this.open();
  }

  on(event: string, fn: (data: never) => void): this {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), fn]);
    return this;
  }

  emit(event: string, data: unknown, ack?: (reply: never) => void): void {
    if (!this.connected || !this.pipe) return;
    let id = '';
    if (ack) {
      id = String(this.nextAck++);
      this.acks.set(Number(id), ack as (d: unknown) => void);
    }
    this.pipe.send(`42${id}${JSON.stringify([event, data])}`);
  }

  /** Emit with an ack, rejecting after `ms` (the ack never comes when the connection drops). */
  request<T>(event: string, data: unknown, ms = 8000): Promise<T> {
    return new Promise((resolve, reject) => {
      if (!this.connected) return reject(new Error('disconnected'));
      const timer = setTimeout(() => reject(new Error('timeout')), ms);
      this.emit(event, data, (reply: T) => {
        clearTimeout(timer);
        resolve(reply);
      });
    });
  }

  /** The server is draining and asks for this wait before the next connect (instead of the backoff). */
  reconnectIn(ms: unknown): void {
    if (typeof ms === 'number' && ms >= 0 && ms <= 60000) this.hintMs = ms;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.pipe?.close();
  }

  private fire(event: string, data?: unknown): void {
    for (const fn of this.handlers.get(event) ?? []) {
      try {
        (fn as (d: unknown) => void)(data);
      } catch {
        // One bad listener must not stop the others or the socket.
      }
    }
  }

  private open(): void {
    this.opened = false;
    let pipe: Pipe | undefined;
    const onFrame = (f: string): unknown => this.pipe === pipe && this.receive(f);
    const onEnd = (): unknown => this.pipe === pipe && this.dropped();
    const started = (p: Pipe): void => {
      pipe = this.pipe = p;
      // A proxy may accept the upgrade and then pass nothing: no Engine.IO open within 5 s ends the try.
      setTimeout(() => !this.opened && this.pipe === p && p.close(), OPEN_TIMEOUT_MS);
    };
    if (this.transport === 'websocket') {
      try {
        started(webSocketPipe(this.url, onFrame, onEnd));
        return;
      } catch {
        // A WebSocket the page forbids (its CSP, a patched constructor) throws: long-poll instead.
        this.transport = 'polling';
      }
    }
    // Long-polling: its code first (a chunk of its own), unless this socket was closed meanwhile.
    const loading: Pipe = { send() {}, close: () => this.pipe === loading && this.dropped() };
    this.pipe = loading;
    Promise.resolve(this.url)
      .then(this.polling)
      .then(
        (make) => this.pipe === loading && !this.closed && started(make(this.url, onFrame, onEnd)),
        () => this.pipe === loading && this.dropped(),
      );
  }

  private receive(frame: string): void {
    const type = frame[0];
    if (type === '0') {
      // Engine.IO open: the server pings every pingInterval; no ping within interval + timeout means dead.
      const { pingInterval, pingTimeout } = JSON.parse(frame.slice(1)) as { pingInterval: number; pingTimeout: number };
      this.opened = true;
      this.watch = pingInterval + pingTimeout;
      this.alive();
      this.pipe?.send(`40${JSON.stringify(this.auth())}`);
    } else if (type === '2') {
      this.alive();
      this.pipe?.send('3');
    } else if (type === '4') this.packet(frame.slice(1));
  }

  private watch = 45000;
  private alive(): void {
    clearTimeout(this.pingTimer);
    this.pingTimer = setTimeout(() => this.pipe?.close(), this.watch);
  }

  private packet(p: string): void {
    const kind = p[0];
    const rest = p.slice(1);
    if (kind === '0') {
      this.connected = true;
      this.attempts = 0;
      this.fire('connect');
    } else if (kind === '4') {
      const err = JSON.parse(rest) as { message: string; data?: { status?: number } };
      this.fire('connect_error', err);
      if (err.data?.status === 401) this.closed = true;
      if (err.data?.status === 429) this.attempts = MAX_BACKOFF_STEP;
      this.pipe?.close();
    } else if (kind === '1') {
      // The server ended this socket on purpose (revoked token): do not come back.
      this.closed = true;
      this.pipe?.close();
    } else if (kind === '2' || kind === '3') {
      const at = rest.indexOf('[');
      const id = rest.slice(0, at);
      const args = JSON.parse(rest.slice(at)) as unknown[];
      if (kind === '2') this.fire(String(args[0]), args[1]);
      else {
        const ack = this.acks.get(Number(id));
        this.acks.delete(Number(id));
        ack?.(args[0]);
      }
    }
  }

  private dropped(): void {
    clearTimeout(this.pingTimer);
    const was = this.connected;
    this.connected = false;
    this.pipe = undefined;
    this.acks.clear();
    if (was) this.fire('disconnect');
    if (this.closed) return;
    // A WebSocket that never opened is blocked on the way (proxy, antivirus): long-poll at once.
    if (!this.opened && this.transport === 'websocket') {
      this.transport = 'polling';
      this.fellBack = true;
      this.open();
      return;
    }
    // Polling failed too: the server is down or refusing (draining), not a proxy: next time WebSocket again.
    if (!this.opened && this.fellBack && typeof WebSocket !== 'undefined') this.transport = 'websocket';
    if (this.opened) this.fellBack = false;
    if (!was) this.fire('connect_error', { message: 'unreachable' });
    // 1 s, 2 s, 4 s ... up to 30 s, with jitter so a restarted node is not hit by everyone at once.
    // A draining node's hint (already jittered per socket) replaces the first wait.
    const delay = this.hintMs ?? Math.min(30000, 1000 * 2 ** this.attempts) * (0.5 + Math.random() / 2);
    this.hintMs = undefined;
    this.attempts = Math.min(MAX_BACKOFF_STEP, this.attempts + 1);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }
}
