import { AsyncResource } from 'node:async_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { laneOfAccount, runInLane, setLaneAccount } from '../db/fair.js';
import { requestToken } from './auth.js';

/**
 * Each request's database calls wait in its tenant's lane (db/fair.ts), so one tenant's flood
 * cannot queue ahead of another tenant's console. The lane is set as early as the request knows
 * whose it is: the account behind its bearer token or widget key when this node has seen them
 * before, else its IP until the token or key is looked up (authenticate, authenticateVisitor and
 * the widget key lookup call `requestAccount`).
 */

/** Bearer token hashes and widget keys already seen on this node -> their account. A scheduling hint only, never a permission. */
const accountOf = new Map<string, string>();
const MAX_HINTS = 100_000;

const tokenHint = (tokenHash: string) => `t:${tokenHash}`;
const keyHint = (widgetKey: string) => `k:${widgetKey}`;

function remember(hint: string, accountId: string): void {
  if (accountOf.get(hint) === accountId) return;
  if (accountOf.size >= MAX_HINTS) accountOf.clear();
  accountOf.set(hint, accountId);
}

/**
 * The request turned out to be `accountId`'s (its token or widget key was looked up): its next
 * database calls, and the next requests with the same token or key, use that account's lane.
 */
export function requestAccount(accountId: string, seen: { tokenHash?: string; widgetKey?: string } = {}): void {
  setLaneAccount(accountId);
  if (seen.tokenHash) remember(tokenHint(seen.tokenHash), accountId);
  if (seen.widgetKey) remember(keyHint(seen.widgetKey), accountId);
}

const keyIn = (v: unknown): string | undefined => {
  const key = v && typeof v === 'object' ? (v as Record<string, unknown>).unique_code : undefined;
  return typeof key === 'string' && key.length <= 64 ? key : undefined;
};

function firstLane(request: FastifyRequest): string {
  const token = requestToken(request.raw);
  const known = token ? accountOf.get(tokenHint(token.hash)) : undefined;
  return known ? laneOfAccount(known) : `ip:${request.ip}`;
}

const scope = Symbol('dbLaneScope');
type Scoped = FastifyRequest & { [scope]?: AsyncResource };

/**
 * Registered first, on the root instance: every request runs in its own lane context from
 * onRequest on. Reading the body happens in the connection's stream callbacks, outside that
 * context: preValidation enters it again (and, for an anonymous widget call, picks the account of
 * the widget key it names when that key is known).
 */
export function registerDbLanes(app: FastifyInstance): void {
  app.addHook('onRequest', (request: Scoped, _reply, done) => {
    runInLane(firstLane(request), () => {
      request[scope] = new AsyncResource('parley-db-lane');
      done();
    });
  });
  app.addHook('preValidation', (request: Scoped, _reply, done) => {
    const resource = request[scope];
    if (!resource) return done();
    resource.runInAsyncScope(() => {
      const key = keyIn(request.body) ?? keyIn(request.query);
      const known = key ? accountOf.get(keyHint(key)) : undefined;
      if (known) setLaneAccount(known);
      done();
    });
  });
}
