import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { ZodType, z } from 'zod';
import {
  CHAT_FILE_TOO_LARGE,
  CHAT_IMAGE_TOO_LARGE,
  CHAT_LIMIT_REACHED,
  EMAIL_INVALID,
  type ErrorCode,
  type ErrorEnvelope,
  MESSAGE_REQUIRED,
  MESSAGE_TOO_LONG,
  NOT_AN_ALLOWED_FILE,
  NOT_AN_IMAGE,
  OFFLINE_EMAIL_REQUIRED,
  OFFLINE_MESSAGE_REQUIRED,
  RATING_ALREADY_GIVEN,
  RATING_COMMENT_TOO_LONG,
  RATING_NOT_DUE,
  RATING_SCORE_INVALID,
  RATING_SURVEY_OFF,
  TIME_ZONE_INVALID,
  TRANSCRIPT_EMAIL_NEEDED,
  TRANSCRIPT_NOTHING_YET,
} from '@parley/shared';
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

/** PostgreSQL's error code (SQLSTATE), as node-postgres and PGlite report it, directly or wrapped by drizzle. */
export function pgErrorCode(e: unknown): string | undefined {
  const err = e as { code?: string; cause?: { code?: string } } | null;
  return err?.code ?? err?.cause?.code;
}

/** PostgreSQL's foreign_key_violation: a row it names is gone. */
export const isForeignKeyViolation = (e: unknown): boolean => pgErrorCode(e) === '23503';

/** PostgreSQL's unique_violation: a unique index already holds the value. */
export const isUniqueViolation = (e: unknown): boolean => pgErrorCode(e) === '23505';

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

/**
 * The stable codes of the refusals a visitor can meet (issue 13: the widget words them in the
 * visitor's language), by the one message each is thrown with; statuses give the rest.
 */
const CODE_OF_MESSAGE: Record<string, ErrorCode> = {
  [NOT_AN_IMAGE]: 'file_type',
  [NOT_AN_ALLOWED_FILE]: 'file_type',
  [CHAT_IMAGE_TOO_LARGE]: 'file_too_large',
  [CHAT_FILE_TOO_LARGE]: 'file_too_large',
  [MESSAGE_REQUIRED]: 'message_required',
  [OFFLINE_MESSAGE_REQUIRED]: 'message_required',
  [MESSAGE_TOO_LONG]: 'message_too_long',
  [OFFLINE_EMAIL_REQUIRED]: 'email_required',
  [EMAIL_INVALID]: 'email_invalid',
  [CHAT_LIMIT_REACHED]: 'chat_limit',
  [RATING_SCORE_INVALID]: 'rating_invalid',
  [RATING_COMMENT_TOO_LONG]: 'comment_too_long',
  [RATING_ALREADY_GIVEN]: 'already_rated',
  [RATING_NOT_DUE]: 'nothing_to_rate',
  [RATING_SURVEY_OFF]: 'survey_off',
  [TRANSCRIPT_EMAIL_NEEDED]: 'transcript_email_needed',
  [TRANSCRIPT_NOTHING_YET]: 'transcript_nothing_yet',
  [TIME_ZONE_INVALID]: 'time_zone_invalid',
  'Unknown widget': 'unknown_widget',
};

/** The envelope's `code` for a refusal: its message's, else its status's (429, 5xx), else none. */
export function errorCodeOf(status: number, message: string): ErrorCode | undefined {
  const known = CODE_OF_MESSAGE[message];
  if (known) return known;
  if (status === 429) return 'rate_limited';
  if (status === 503) return 'unavailable';
  if (status >= 500) return 'server_error';
  return undefined;
}

function envelope(message: string, errors?: Record<string, string[]>, code?: ErrorCode): ErrorEnvelope {
  const body: ErrorEnvelope = errors ? { message, error: message, errors } : { message, error: message };
  if (code) body.code = code;
  return body;
}

/** What any thrown error becomes for a client, over HTTP and sockets alike. */
export interface ErrorReply {
  status: number;
  message: string;
  errors?: Record<string, string[]>;
  retryAfterSeconds?: number;
  /** A server fault (5xx): log it. Bad input never is one. */
  unexpected: boolean;
  /** The stable code of the refusal, when it has one (errorCodeOf). */
  code?: ErrorCode;
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
  const r = replyOf(err);
  const code = errorCodeOf(r.status, r.message);
  return code ? { ...r, code } : r;
}

function replyOf(err: unknown): ErrorReply {
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
    // With PostgreSQL's SQLSTATE at the top: drizzle wraps the driver's error, whose code the
    // serialized `err` leaves out (only its message is appended), e.g. 40P01 for a deadlock.
    if (r.unexpected) request.log.error({ err, sqlState: pgErrorCode(err) }, 'request failed');
    if (r.retryAfterSeconds !== undefined) reply.header('Retry-After', String(r.retryAfterSeconds));
    return reply.status(r.status).send(envelope(r.message, r.errors, r.code));
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
