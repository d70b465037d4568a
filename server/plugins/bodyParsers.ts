import { isUtf8 } from 'node:buffer';
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
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body: Buffer, done) => {
    if (body.length === 0) return done(new HttpError(400, 'The request body is empty'));
    if (!isUtf8(body)) return done(new HttpError(400, 'The request body is not valid UTF-8'));
    const text = body.toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(new HttpError(400, 'The request body is not valid JSON'));
    }
    if (text.includes('\\u0000')) return done(new HttpError(400, NUL_MESSAGE));
    done(null, parsed);
  });
}
