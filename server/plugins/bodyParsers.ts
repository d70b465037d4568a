import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../errors.js';

/** PostgreSQL text cannot hold NUL; refuse it up front rather than fail on insert. */
export const NUL_MESSAGE = 'Text must not contain NUL characters';

/** True when any string (or key) inside a parsed payload holds a NUL character. */
export function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 32 || value === null || typeof value !== 'object') return false;
  for (const [k, v] of Object.entries(value)) if (k.includes('\u0000') || containsNul(v, depth + 1)) return true;
  return false;
}

/** The NUL rule for input that does not come through the JSON parser (socket events, form fields). */
export function assertNoNul(value: unknown): void {
  if (containsNul(value)) throw new HttpError(400, NUL_MESSAGE);
}

/**
 * JSON bodies: must be UTF-8 (a body in another encoding is refused, not silently mangled)
 * and must not contain NUL characters.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJsonBody);
  // A call answered before its body was read to the end (a refused upload: the multipart reader
  // stopped mid-file) would leave the rest of the body on a keep-alive connection nobody reads:
  // the sender blocks writing it and never sends another call there, and the connection stays
  // open for good. Such an answer closes its connection instead.
  // A small body (a refused JSON call's) is read and dropped by Node once the answer is sent, and
  // the connection stays open for the client's next call: closing it would make a refused flood
  // cost a TCP connection per call.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closeAfterAnswer(request.raw)) reply.header('connection', 'close');
    done(null, payload);
  });
}

/** True when the request has a body that was not received to its end. */
export function bodyLeftUnread(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Unread bodies up to this size are read and dropped after the answer (Node does), on a connection that stays open. */
export const DRAIN_MAX_BYTES = 64 * 1024;

/** An answer given before the body was read closes its connection when the rest of the body is large or of unknown length. */
export function closeAfterAnswer(req: IncomingMessage): boolean {
  if (!bodyLeftUnread(req)) return false;
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(req.headers['content-length']);
  return !(Number.isFinite(length) && length <= DRAIN_MAX_BYTES);
}

/** The JSON rules above, for a scope that also takes JSON sent as text/plain (the widget's reports). */
export function parseJsonBody(_req: unknown, body: Buffer, done: (err: Error | null, parsed?: unknown) => void): void {
  const result = jsonBody(body);
  if (result instanceof HttpError) done(result);
  else done(null, result.parsed);
}

function jsonBody(body: Buffer): HttpError | { parsed: unknown } {
  if (body.length === 0) return new HttpError(400, 'The request body is empty');
  if (!isUtf8(body)) return new HttpError(400, 'The request body is not valid UTF-8');
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return new HttpError(400, 'The request body is not valid JSON');
  }
  if (text.includes('\\u0000')) return new HttpError(400, NUL_MESSAGE);
  return { parsed };
}
