import type { MessageDto } from '@parley/shared';
import { CHAT_LIMIT_REACHED } from '../shared.js';

/**
 * A send that failed; `status` is the HTTP (or ack) status, 0 for network errors and timeouts;
 * `retryAfter` the seconds a rate-limited (429) call asks to wait (Retry-After, ack retry_after).
 */
export class SendError extends Error {
  constructor(
    message: string,
    readonly status = 0,
    readonly retryAfter = 0,
    /** The envelope's stable code (shared/src/errorCodes.ts), when the server gave one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** Rate limited: the message stays in the outbox and goes again after `retryAfter`. */
export const isRateLimited = (err: unknown): err is SendError => err instanceof SendError && err.status === 429;

export interface Outgoing {
  client_id: string;
  message: string;
  image?: Blob;
}

export interface Channels {
  /** The socket's send while connected (text only), else undefined. */
  socket(): ((o: Outgoing) => Promise<MessageDto>) | undefined;
  rest(o: Outgoing): Promise<MessageDto>;
}

/** Network failures, timeouts, rate limits and server errors may succeed later; validation never. */
export function isRetryable(err: unknown): boolean {
  const status = err instanceof SendError ? err.status : 0;
  return status === 0 || status === 408 || status === 429 || status >= 500;
}

/** The account used its plan's chats this month: the visitor is offered the offline form instead. */
export function isChatLimit(err: unknown): boolean {
  return err instanceof SendError && err.status === 403 && (err.code === 'chat_limit' || err.message === CHAT_LIMIT_REACHED);
}

/** Random, URL-safe, valid as a client_id; crypto.randomUUID needs a secure context, this does not. */
export function newClientId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => (b % 36).toString(36)).join('');
}

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Delivers one message, retrying on retryable failures with the same client_id, so the server
 * stores it once however many attempts reach it. Each attempt takes the socket when connected
 * (and the message has no image), REST otherwise.
 */
export async function deliver(
  o: Outgoing,
  channels: Channels,
  { attempts = 4, sleep = wait, backoff = (n: number) => 1000 * 2 ** (n - 1) } = {},
): Promise<MessageDto> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    // A rate-limited attempt waits as long as the server asked, at least.
    if (i > 0) await sleep(Math.max(backoff(i), isRateLimited(last) ? last.retryAfter * 1000 : 0));
    const send = (o.image ? undefined : channels.socket()) ?? channels.rest;
    try {
      return await send(o);
    } catch (err) {
      last = err;
      if (!isRetryable(err)) break;
    }
  }
  throw last;
}
