import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { type SerializedError, stdSerializers } from 'pino';

/** How often the refusals of the rate limits are summed up in one log line. */
export const REFUSALS_LOG_MS = 60_000;

/**
 * Fastify's request log lines (LOG_LEVEL=info and below), cheaper under a flood (issue 11):
 * - one line per request, when it completes (with the method, URL, status and time), instead of
 *   an "incoming request" line and a "request completed" line;
 * - none for a call refused by a rate limit (429): a flood of thousands of refused calls a second
 *   would otherwise write two lines each. Refusals are counted by route and summed up in one info
 *   line at most every REFUSALS_LOG_MS ("rate limits refused N calls"), beside the
 *   parley_rate_limit_refusals_total metric, which counts each one.
 */
export class RequestLog extends LogController {
  private refused = new Map<string, number>();
  private total = 0;
  private timer: NodeJS.Timeout | undefined;
  private log: FastifyBaseLogger | undefined;

  override incomingRequest(): void {
    // Logged once, on completion (requestCompleted).
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (!error && reply.statusCode === 429) {
      this.countRefusal(`${request.method} ${request.routeOptions.url ?? 'unmatched'}`, request.server.log);
      return;
    }
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }

  /** Counts a refused call of `route` ('POST /api/widget/visitors') for the next summary line. */
  countRefusal(route: string, log: FastifyBaseLogger): void {
    this.refused.set(route, (this.refused.get(route) ?? 0) + 1);
    this.total++;
    this.log ??= log;
    if (this.timer) return;
    this.timer = setTimeout(() => this.flush(), REFUSALS_LOG_MS);
    this.timer.unref();
  }

  /** Writes the summary line of the refusals counted since the last one (none: nothing). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.total === 0) return;
    this.log?.info({ refused: Object.fromEntries(this.refused), seconds: REFUSALS_LOG_MS / 1000 }, `rate limits refused ${this.total} calls`);
    this.refused.clear();
    this.total = 0;
  }
}

/** What stands in for a failed statement's parameters in the log. */
export const PARAMS_REDACTED = '[redacted]';

/**
 * The log's `err` serializer: pino's own, without a failed statement's parameters. drizzle puts
 * them in its error (`params`, and "params: ..." in the message and stack), and for a send they
 * are what a visitor or agent wrote: message text, names, emails. The statement and PostgreSQL's
 * code and message stay, which is what finds the fault.
 */
export function serializeError(err: Error): SerializedError {
  const out = stdSerializers.err(err);
  if (!out || typeof out !== 'object') return out; // not an error: pino passes it through
  if ('params' in out) out.params = PARAMS_REDACTED;
  const redact = (text: string) => text.replace(/^params: .*$/m, `params: ${PARAMS_REDACTED}`);
  if (typeof out.message === 'string') out.message = redact(out.message);
  if (typeof out.stack === 'string') out.stack = redact(out.stack);
  return out;
}

/** The logger's options, for the app and the job worker alike. */
export const loggerOptions = (level: string) => ({ level, serializers: { err: serializeError } });
