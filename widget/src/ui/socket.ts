/**
 * A minimal Socket.IO (protocol v5 over Engine.IO v4) client on the browser's WebSocket: text
 * events, acks, ping/pong, connect errors and reconnects with backoff. It speaks the same wire
 * protocol as socket.io-client (websocket transport, default namespace) at a fraction of its size
 * (socket.io-client alone would take half the widget's 25 KB budget). No long-polling transport:
 * when WebSockets are blocked the widget falls back to the REST calls with 10 s polling.
 */
type Handler = (data: never) => void;

/** 2^5 s > 30 s: the longest backoff. */
const MAX_BACKOFF_STEP = 5;

export interface SocketEvents {
  connect: () => void;
  disconnect: () => void;
  /**
   * The server refused the handshake (bad visitor token: data.status 401, never retried; too many
   * sockets for this visitor or address: 429, retried at the longest backoff while the chat polls).
   */
  connect_error: (err: { message: string; data?: { status?: number } }) => void;
}

export class MiniSocket {
  connected = false;
  private ws?: WebSocket;
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
  ) {
    this.open();
  }

  on(event: string, fn: (data: never) => void): this {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), fn]);
    return this;
  }

  emit(event: string, data: unknown, ack?: (reply: never) => void): void {
    if (!this.connected || !this.ws) return;
    let id = '';
    if (ack) {
      id = String(this.nextAck++);
      this.acks.set(Number(id), ack as (d: unknown) => void);
    }
    this.ws.send(`42${id}${JSON.stringify([event, data])}`);
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
    this.ws?.close();
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
    const ws = new WebSocket(`${this.url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`);
    this.ws = ws;
    ws.onmessage = (e) => this.receive(String(e.data));
    ws.onclose = () => this.dropped();
    ws.onerror = () => ws.close();
  }

  private receive(frame: string): void {
    const type = frame[0];
    if (type === '0') {
      // Engine.IO open: the server pings every pingInterval; no ping within interval + timeout means dead.
      const { pingInterval, pingTimeout } = JSON.parse(frame.slice(1)) as { pingInterval: number; pingTimeout: number };
      this.watch = pingInterval + pingTimeout;
      this.alive();
      this.ws?.send(`40${JSON.stringify(this.auth())}`);
    } else if (type === '2') {
      this.alive();
      this.ws?.send('3');
    } else if (type === '4') this.packet(frame.slice(1));
  }

  private watch = 45000;
  private alive(): void {
    clearTimeout(this.pingTimer);
    this.pingTimer = setTimeout(() => this.ws?.close(), this.watch);
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
      this.ws?.close();
    } else if (kind === '1') {
      // The server ended this socket on purpose (revoked token): do not come back.
      this.closed = true;
      this.ws?.close();
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
    this.ws = undefined;
    this.acks.clear();
    if (was) this.fire('disconnect');
    else if (!this.closed) this.fire('connect_error', { message: 'unreachable' });
    if (this.closed) return;
    // 1 s, 2 s, 4 s ... up to 30 s, with jitter so a restarted node is not hit by everyone at once.
    // A draining node's hint (already jittered per socket) replaces the first wait.
    const delay = this.hintMs ?? Math.min(30000, 1000 * 2 ** this.attempts) * (0.5 + Math.random() / 2);
    this.hintMs = undefined;
    this.attempts = Math.min(MAX_BACKOFF_STEP, this.attempts + 1);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }
}
