import type { Socket } from 'socket.io';
import type { SendAck } from '@parley/shared';
import { HttpError } from '../errors.js';

/** Events a socket may send per window; past that its events are refused, and a flood disconnects it. */
const EVENTS_PER_WINDOW = 100;
const WINDOW_MS = 10_000;
const DISCONNECT_AFTER_REFUSALS = 100;

export type Ack = (reply: SendAck | { ok: true } | { ok: false; status: number; message: string }) => void;

export function toAck(err: unknown): { ok: false; status: number; message: string; errors?: Record<string, string[]> } {
  if (err instanceof HttpError) {
    return err.errors ? { ok: false, status: err.statusCode, message: err.message, errors: err.errors } : { ok: false, status: err.statusCode, message: err.message };
  }
  return { ok: false, status: 500, message: 'Something went wrong. Please try again.' };
}

/**
 * Per-socket rate limit for incoming events, and one safe way to handle them: the handler's
 * error becomes an ack in the HTTP envelope's words, never an exception on the server.
 */
export function guardSocket(socket: Socket, log: { error: (o: object, m: string) => void }) {
  let windowStart = Date.now();
  let count = 0;
  let refused = 0;
  return function on(event: string, handler: (payload: unknown, ack: Ack) => Promise<void>): void {
    socket.on(event, (payload: unknown, maybeAck?: unknown) => {
      const ack: Ack = typeof maybeAck === 'function' ? (maybeAck as Ack) : () => {};
      const now = Date.now();
      if (now - windowStart > WINDOW_MS) {
        windowStart = now;
        count = 0;
      }
      if (++count > EVENTS_PER_WINDOW) {
        ack({ ok: false, status: 429, message: 'Too many requests. Please try again later.' });
        if (++refused >= DISCONNECT_AFTER_REFUSALS) socket.disconnect(true);
        return;
      }
      handler(payload, ack).catch((err: unknown) => {
        const reply = toAck(err);
        if (reply.status >= 500) log.error({ err, event }, 'socket event failed');
        ack(reply);
      });
    });
  };
}
