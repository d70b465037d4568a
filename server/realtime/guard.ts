import type { Socket } from 'socket.io';
import type { ErrorCode, SendAck } from '@parley/shared';
import { HttpError, errorReply } from '../errors.js';
import { assertNoNul } from '../plugins/bodyParsers.js';
import { TOO_MANY_REQUESTS } from '../services/rateLimit.js';
import { SYSTEM_LANE, laneOfAccount, runInLane } from '../db/fair.js';

/** A socket event's database calls wait in its account's lane (db/fair.ts), like its HTTP calls. */
function laneOf(socket: Socket) {
  const data = socket.data as { accountId?: string; actor?: { accountId: string } } | undefined;
  const accountId = data?.accountId ?? data?.actor?.accountId;
  return accountId ? laneOfAccount(accountId) : SYSTEM_LANE;
}

/** Console sockets: events a socket may send per window; past that its events are refused. */
const EVENTS_PER_WINDOW = 100;
const WINDOW_MS = 10_000;
/** A socket that keeps sending while refused is flooding: it is disconnected. */
const DISCONNECT_AFTER_REFUSALS = 100;

export interface AckError {
  ok: false;
  status: number;
  message: string;
  errors?: Record<string, string[]>;
  /** Seconds before a refused (429) event may be sent again, like HTTP's Retry-After. */
  retry_after?: number;
  /** The refusal's stable code, as in the HTTP envelope (errors.ts). */
  code?: ErrorCode;
}
export type Ack = (reply: SendAck | { ok: true } | AckError) => void;

/** An error as an ack, in the HTTP envelope's words and status (one mapping for both: errors.ts). */
export function toAck(err: unknown): AckError {
  const r = errorReply(err);
  const ack: AckError = { ok: false, status: r.status, message: r.message };
  if (r.errors) ack.errors = r.errors;
  if (r.retryAfterSeconds !== undefined) ack.retry_after = r.retryAfterSeconds;
  if (r.code) ack.code = r.code;
  return ack;
}

/** A per-socket budget (console sockets): throws 429 once the window's events are spent. */
function perSocketWindow(): () => Promise<void> {
  let windowStart = Date.now();
  let count = 0;
  return async () => {
    const now = Date.now();
    if (now - windowStart > WINDOW_MS) {
      windowStart = now;
      count = 0;
    }
    if (++count > EVENTS_PER_WINDOW) throw new HttpError(429, TOO_MANY_REQUESTS, undefined, Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000)));
  };
}

/** A socket's refused events so far: only sockets that were refused have an entry (an idle socket keeps nothing). */
const refusals = new WeakMap<Socket, number>();

/** An event's handler: the socket it came on, its payload, its ack. */
export type SocketHandler = (socket: Socket, payload: unknown, ack: Ack) => Promise<void>;
/** A listener Socket.IO calls with the socket as `this`. */
export type SocketListener = (this: Socket, payload: unknown, maybeAck?: unknown) => void;

/**
 * One safe way to handle incoming events: the rate limit (`limit`, shared by all of a widget
 * visitor's sockets and nodes; a per-socket window for console sockets), the NUL rule of the JSON
 * body parser, then the handler, in the account's database lane; any error becomes an ack in the
 * HTTP envelope's words, never an exception on the server, and only server faults are logged.
 *
 * The listener reads everything from the socket it is called on (Socket.IO's `this`), so one
 * listener serves every socket (issue 15: an idle widget socket keeps no closures of its own).
 */
export function guardedListener(
  event: string,
  handler: SocketHandler,
  limit: (socket: Socket) => Promise<void>,
  log: { error: (o: object, m: string) => void },
): SocketListener {
  return function (this: Socket, payload: unknown, maybeAck?: unknown): void {
    const ack: Ack = typeof maybeAck === 'function' ? (maybeAck as Ack) : () => {};
    runInLane(laneOf(this), () => {
      limit(this)
        .then(
          () => {
            assertNoNul(payload);
            return handler(this, payload, ack);
          },
          (err: unknown) => {
            const refused = (refusals.get(this) ?? 0) + 1;
            refusals.set(this, refused);
            if (refused >= DISCONNECT_AFTER_REFUSALS) this.disconnect(true);
            throw err;
          },
        )
        .catch((err: unknown) => {
          const reply = toAck(err);
          if (errorReply(err).unexpected) log.error({ err, event }, 'socket event failed');
          ack(reply);
        });
    });
  };
}

/** guardedListener for one socket's own handlers (console sockets), with a per-socket window by default. */
export function guardSocket(socket: Socket, log: { error: (o: object, m: string) => void }, limit: () => Promise<void> = perSocketWindow()) {
  return function on(event: string, handler: (payload: unknown, ack: Ack) => Promise<void>): void {
    socket.on(event, guardedListener(event, (_socket, payload, ack) => handler(payload, ack), limit, log));
  };
}
