import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ZodType, z } from 'zod';
import type { ErrorEnvelope } from '@parley/shared';
import { isDatabaseUnavailable } from './db/client.js';

/** The one error type of the API: a status and the human text for `message` and `error`. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly errors?: Record<string, string[]>,
    /** Seconds before a refused (429) call may be tried again: the Retry-After header, `retry_after` in socket acks. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export const notFound = (what = 'Not found') => new HttpError(404, what);
export const forbidden = () => new HttpError(403, 'You do not have permission to do this');
export const unauthenticated = () => new HttpError(401, 'Unauthenticated');

const VALIDATION_MESSAGE = 'The given data was invalid.';
export const SERVICE_UNAVAILABLE = 'The service is temporarily unavailable. Please try again in a moment.';

function fieldErrors(issues: { path: PropertyKey[]; message: string }[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of issues) {
    const field = issue.path.map(String).join('.') || '_';
    const list = (errors[field] ??= []);
    if (!list.includes(issue.message)) list.push(issue.message);
  }
  return errors;
}

/** A 422 whose `message` is the first field message, so a client showing only `message` is still exact. */
export function validationError(errors: Record<string, string[]>): HttpError {
  const first = Object.values(errors)[0]?.[0] ?? VALIDATION_MESSAGE;
  return new HttpError(422, first, errors);
}

/** Validates data that did not come through a route schema (multipart fields, sockets). */
export function parseOrThrow<S extends ZodType>(schema: S, data: unknown): z.output<S> {
  const result = schema.safeParse(data);
  if (!result.success) throw validationError(fieldErrors(result.error.issues));
  return result.data;
}

function envelope(message: string, errors?: Record<string, string[]>): ErrorEnvelope {
  return errors ? { message, error: message, errors } : { message, error: message };
}

/** What any thrown error becomes for a client, over HTTP and sockets alike. */
export interface ErrorReply {
  status: number;
  message: string;
  errors?: Record<string, string[]>;
  retryAfterSeconds?: number;
  /** A server fault (5xx): log it. Bad input never is one. */
  unexpected: boolean;
}

/** Fastify's own 4xx (bad JSON, body too large, wrong content type...): keep the status, plain text. */
const FRAMEWORK_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported content type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Invalid content length',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'The request is not multipart',
};

/**
 * The one mapping from a thrown error to a client's answer: the HTTP error handler and the
 * socket acks (realtime/guard.ts) both use it, so the same bad input gets the same status and words.
 */
export function errorReply(err: unknown): ErrorReply {
  if (err instanceof HttpError) {
    return { status: err.statusCode, message: err.message, errors: err.errors, retryAfterSeconds: err.retryAfterSeconds, unexpected: false };
  }
  if (hasZodFastifySchemaValidationErrors(err)) {
    const issues = err.validation.map((v) => ({
      path: v.instancePath.split('/').filter(Boolean),
      message: v.message ?? 'Invalid value',
    }));
    return { status: 422, message: issues[0]?.message ?? VALIDATION_MESSAGE, errors: fieldErrors(issues), unexpected: false };
  }
  // The database cannot be reached (or cannot serve now): a temporary condition, never a 500.
  if (isDatabaseUnavailable(err)) return { status: 503, message: SERVICE_UNAVAILABLE, retryAfterSeconds: 5, unexpected: false };
  // Safety net for input the schemas let through but PostgreSQL refuses (never a 5xx for bad input).
  const e = err as { cause?: { code?: string }; code?: string; statusCode?: number };
  const pgCode = e?.cause?.code ?? e?.code;
  if (typeof pgCode === 'string' && /^22[0-9A-Z]{3}$/.test(pgCode)) return { status: 400, message: 'Invalid value', unexpected: false };
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 500) return { status: 500, message: 'Something went wrong. Please try again.', unexpected: true };
  const message = (typeof e.code === 'string' ? FRAMEWORK_MESSAGES[e.code] : undefined) ?? (status === 429 ? 'Too many requests. Please try again later.' : 'Bad request');
  return { status, message, unexpected: false };
}

/** Turns every thrown error into the documented envelope; never a stack trace or SQL text. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | HttpError, request, reply) => {
    const r = errorReply(err);
    if (r.unexpected) request.log.error({ err }, 'request failed');
    if (r.retryAfterSeconds !== undefined) reply.header('Retry-After', String(r.retryAfterSeconds));
    return reply.status(r.status).send(envelope(r.message, r.errors));
  });

  app.setNotFoundHandler((_request, reply) => {
    reply.status(404).send(envelope('Not found'));
  });
}

/**
 * Fastify's `frameworkErrors`: a URL the router cannot read (bad percent-encoding, a parameter
 * past maxParamLength) answers the envelope, never Fastify's text that echoes the URL back.
 */
export function frameworkErrorHandler(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const known: Record<string, [number, string]> = {
    FST_ERR_BAD_URL: [400, 'The address is not valid'],
    FST_ERR_MAX_PARAM_LENGTH: [414, 'The address is too long'],
  };
  const [status, message] = known[err.code] ?? [400, 'Bad request'];
  void reply.status(status).send(envelope(message));
}

/**
 * Node's `clientError` (a request HTTP itself refuses: wrong Content-Length, bad header line,
 * headers too large, timeout): the envelope, written straight on the socket, then closed.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'The request took too long']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'The request headers are too large']
        : [400, 'Bad Request', 'The request is malformed'];
  const body = JSON.stringify(envelope(message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
