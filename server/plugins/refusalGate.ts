import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { clientIp } from '../realtime/auth.js';
import { TOO_MANY_REQUESTS, type KnownRefusal, type WidgetLimits } from '../services/rateLimit.js';
import { requestToken } from './auth.js';
import { closeAfterAnswer } from './bodyParsers.js';
import type { RefusalHolds } from './refusalHolds.js';

/**
 * The cheapest refusal (issue 11: a flood of refused widget calls must not slow other tenants).
 * Once this node knows a budget is spent (services/rateLimit.ts keeps a spent key's lease at 0
 * until its window ends), every further call of that IP or visitor is answered 429 here, on the
 * HTTP server's request event, before Fastify builds a request, routes it, runs its hooks, reads
 * its body or logs it: the same answer (status, envelope, Retry-After, CORS) the widget hooks
 * give, for a fraction of the CPU. Only calls already known to be refused are answered here;
 * everything else goes on to Fastify and is counted by the hooks as before (plugins/visitorAuth.ts).
 */

export interface RefusalGate {
  /** A widget route whose calls count against the IP (and visitor) budgets; `newVisitor` also against new visitors per IP. */
  /** `widgetKey`: anonymous calls count against the widget key they name (the gate reads it from the query: the body is not read here). */
  addRoute(method: string, url: string, opts?: { newVisitor?: boolean; widgetKey?: boolean }): void;
  /** Answers the call when it is known to be refused; false: it goes on to Fastify. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Calls answered here so far. */
  readonly answered: number;
  /** Called for each call answered here (metrics). */
  onRefused(listener: (limit: string, method: string, route: string) => void): void;
  /**
   * Another answer given before Fastify when this node already knows it (a poll remembered quiet,
   * routes/widget/widget.ts): tried, in order, for each call the gate did not refuse; true when
   * it answered.
   */
  answerEarly(answer: (req: IncomingMessage, res: ServerResponse) => boolean): void;
  /** Tries the early answers on a call (true: one answered it). */
  early(req: IncomingMessage, res: ServerResponse): boolean;
  /** Calls given an early answer so far. */
  readonly answeredEarly: number;
}

interface GatedRoute {
  method: string;
  route: string;
  match: RegExp;
  newVisitor: boolean;
  widgetKey: boolean;
}

const BODY = Buffer.from(JSON.stringify({ message: TOO_MANY_REQUESTS, error: TOO_MANY_REQUESTS, code: 'rate_limited' }));

/**
 * The widget key a call names in its query (`unique_code`): the widget sends it there as well as
 * in the body of its anonymous calls, so a key whose budget is spent is refused here without
 * reading the body. A call that leaves it out of the query is counted by the hooks, after its body.
 */
function queryKey(url: string): string | undefined {
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  const match = /(?:^|&)unique_code=([^&]{1,200})/.exec(url.slice(q + 1));
  if (!match) return undefined;
  try {
    const key = decodeURIComponent(match[1] as string);
    return key.length <= 64 ? key : undefined;
  } catch {
    return undefined;
  }
}

/** A route pattern ('/api/widget/messages/:id/vote') as a regular expression over a path. */
function patternOf(url: string): RegExp {
  const parts = url.split('/').map((p) => (p.startsWith(':') ? '[^/]+' : p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${parts.join('/')}/?$`);
}

export function createRefusalGate(opts: { trustProxy: Config['trustProxy']; limits: () => WidgetLimits | undefined; holds: RefusalHolds }): RefusalGate {
  const routes: GatedRoute[] = [];
  const listeners: ((limit: string, method: string, route: string) => void)[] = [];
  const earlyAnswers: ((req: IncomingMessage, res: ServerResponse) => boolean)[] = [];

  function routeOf(req: IncomingMessage): GatedRoute | undefined {
    const url = req.url ?? '';
    // Every widget route is under /api/ (a cheap first test for the console's and the app's own calls).
    if (!url.startsWith('/api/')) return undefined;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    for (const r of routes) if (r.method === req.method && r.match.test(path)) return r;
    return undefined;
  }

  let answered = 0;
  let answeredEarly = 0;
  return {
    get answered() {
      return answered;
    },
    get answeredEarly() {
      return answeredEarly;
    },
    addRoute(method, url, { newVisitor = false, widgetKey = false } = {}) {
      if (method === 'HEAD' || method === 'OPTIONS') return;
      routes.push({ method, route: url, match: patternOf(url), newVisitor, widgetKey });
    },
    onRefused(listener) {
      listeners.push(listener);
    },
    answerEarly(answer) {
      earlyAnswers.push(answer);
    },
    early(req, res) {
      for (const answer of earlyAnswers) {
        if (answer(req, res)) {
          answeredEarly++;
          return true;
        }
      }
      return false;
    },
    handle(req, res) {
      const limits = opts.limits();
      if (!limits || routes.length === 0) return false;
      const route = routeOf(req);
      if (!route) return false;
      const token = requestToken(req);
      let refusal: KnownRefusal | undefined;
      let ip: string;
      try {
        ip = clientIp(req, opts.trustProxy);
        refusal = limits.knownRefusal({
          ip,
          visitorKey: token?.hash,
          widgetKey: !token && route.widgetKey ? queryKey(req.url ?? '') : undefined,
          newVisitor: route.newVisitor,
        });
      } catch {
        return false; // anything unexpected: Fastify answers as usual
      }
      if (!refusal) return false;
      const headers: Record<string, string | number> = {
        'content-type': 'application/json; charset=utf-8',
        'content-length': BODY.length,
        'retry-after': String(refusal.retryAfterSeconds),
      };
      // Widget calls answer any origin (app.ts PUBLIC_CORS_PREFIXES), as @fastify/cors does.
      // Its body is never read: a small one is dropped after the answer and the connection kept for
      // the next call, which is read a while later (`pauseAfter`); after a large one the connection
      // is held unread, then closes (`closeLater`; plugins/bodyParsers.ts).
      const large = closeAfterAnswer(req);
      if (large) headers.connection = 'close';
      const origin = req.headers.origin;
      if (origin) {
        headers['access-control-allow-origin'] = origin;
        headers.vary = 'Origin';
      }
      res.writeHead(429, headers);
      // A held large body's connection gets the whole answer (its length is in the head) without the
      // answer being ended: ending it would make Node read and drop the rest of the body, then close.
      if (large && opts.holds.closeLater(req, ip)) res.write(BODY);
      else {
        res.end(BODY);
        if (!large) opts.holds.pauseAfter(req, ip, res);
      }
      answered++;
      for (const l of listeners) l(refusal.limit, route.method, route.route);
      return true;
    },
  };
}

/**
 * Puts the gate in front of Fastify's request handler on app.server (Socket.IO, attached later,
 * wraps both in turn and keeps its own path). app.inject() calls Fastify directly: tests that
 * inject see the hooks' refusals, which give the same answer.
 */
export function installRefusalGate(app: FastifyInstance, gate: RefusalGate): void {
  const server = app.server;
  const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (gate.handle(req, res) || gate.early(req, res)) return;
    for (const h of handlers) h.call(server, req, res);
  });
}
