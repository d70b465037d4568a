import type { Socket } from 'socket.io';
import type { ErrorCode, SendAck } from '@parley/shared';
import { HttpError, errorReply } from '../errors.js';
import { assertNoNul } from '../plugins/bodyParsers.js';
import { TOO_MANY_REQUESTS } from '../services/rateLimit.js';
import { SYSTEM_LANE, laneOfAccount, runInLane } from '../db/fair.js';

/** A socket event's database calls wait in its account's lane (db/fair.ts), like its HTTP calls. */
function inAccountLane<A extends unknown[]>(socket: Socket, listener: (...args: A) => void): (...args: A) => void {
  return (...args) => {
    const data = socket.data as { accountId?: string; actor?: { accountId: string } } | undefined;
    const accountId = data?.accountId ?? data?.actor?.accountId;
    runInLane(accountId ? laneOfAccount(accountId) : SYSTEM_LANE, () => listener(...args));
  };
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

/**
 * One safe way to handle incoming events: the rate limit (`limit`, shared by all of a widget
 * visitor's sockets and nodes; a per-socket window for console sockets), the NUL rule of the JSON
 * body parser, then the handler; any error becomes an ack in the HTTP envelope's words, never an
 * exception on the server, and only server faults are logged.
 */
export function guardSocket(socket: Socket, log: { error: (o: object, m: string) => void }, limit: () => Promise<void> = perSocketWindow()) {
  let refused = 0;
  return function on(event: string, handler: (payload: unknown, ack: Ack) => Promise<void>): void {
    socket.on(event, inAccountLane(socket, (payload: unknown, maybeAck?: unknown) => {
      const ack: Ack = typeof maybeAck === 'function' ? (maybeAck as Ack) : () => {};
      limit()
        .then(
          () => {
            assertNoNul(payload);
            return handler(payload, ack);
          },
          (err: unknown) => {
            if (++refused >= DISCONNECT_AFTER_REFUSALS) socket.disconnect(true);
            throw err;
          },
        )
        .catch((err: unknown) => {
          const reply = toAck(err);
          if (errorReply(err).unexpected) log.error({ err, event }, 'socket event failed');
          ack(reply);
        });
    }));
  };
}
