import type { IncomingMessage } from 'node:http';
import { eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { API_KEY_PREFIX, API_KEY_SCOPE_FORBIDDEN } from '@parley/shared';
import type { Db } from '../db/client.js';
import { apiKeys, authTokens, roles, users } from '../db/schema.js';
import { HttpError } from '../errors.js';
import type { Actor } from '../policies/actor.js';
import { hashToken } from '../services/secrets.js';
import { type SessionLifetime, sessionExpired, touchAfterMs } from '../services/sessions.js';
import { requestAccount } from './dbLanes.js';
import { keyMayCall } from '../routes/apiKeys/scopes.js';

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S{1,512})$/i.exec(header.trim());
  return match?.[1];
}

const tokensOf = new WeakMap<IncomingMessage, { token: string; hash: string } | null>();

/**
 * The request's bearer token and its hash, read and hashed once per request: the refusal gate,
 * the database lane, the widget limits and the visitor's lookup all ask for it (issue 15: a poll
 * answered from memory hashed it up to four times).
 */
export function requestToken(req: IncomingMessage): { token: string; hash: string } | undefined {
  let seen = tokensOf.get(req);
  if (seen === undefined) {
    const token = bearerToken(req.headers.authorization);
    seen = token ? { token, hash: hashToken(token) } : null;
    tokensOf.set(req, seen);
  }
  return seen ?? undefined;
}

/** The acting user's columns, as sessions and API keys read them (joined with their role). */
const actorColumns = {
  id: users.id,
  accountId: users.accountId,
  name: users.name,
  email: users.email,
  isAdmin: users.isAdmin,
  type: users.type,
  roleId: users.roleId,
  roleName: roles.name,
  status: users.status,
  createdAt: users.createdAt,
};

/** The console user behind a bearer token, or undefined when the token is unknown, revoked or expired. */
export async function actorForToken(db: Db, token: string, sessions: SessionLifetime): Promise<Actor | undefined> {
  const tokenHash = hashToken(token);
  const [row] = await db
    .select({
      ...actorColumns,
      lastUsedAt: authTokens.lastUsedAt,
      tokenCreatedAt: authTokens.createdAt,
    })
    .from(authTokens)
    .innerJoin(users, eq(users.id, authTokens.userId))
    .leftJoin(roles, eq(roles.id, users.roleId))
    .where(eq(authTokens.tokenHash, tokenHash))
    .limit(1);
  if (!row) return undefined;
  const { lastUsedAt, tokenCreatedAt, ...actor } = row;
  // An expired session is refused at once; the expiry sweep deletes it and closes its sockets.
  if (sessionExpired(sessions, { createdAt: tokenCreatedAt, lastUsedAt })) return undefined;
  // Each use renews the idle lifetime; presence ("is anyone online?") reads it too. Written at most
  // once a minute (sooner with a short idle lifetime).
  if (Date.now() - lastUsedAt.getTime() > touchAfterMs(sessions)) {
    await db.update(authTokens).set({ lastUsedAt: new Date() }).where(eq(authTokens.tokenHash, tokenHash));
  }
  return { ...actor, tokenHash };
}

/** How often a key's last-used time is written at most. */
const KEY_TOUCH_MS = 60_000;

/**
 * The user behind an API key (PRODUCT.md section 11: a key acts as the user who created it,
 * narrowed to its scopes, and dies with that user), or undefined for an unknown or revoked key
 * or a disabled user.
 */
export async function actorForApiKey(db: Db, key: string): Promise<(Actor & { apiKey: { id: string; scopes: string[] } }) | undefined> {
  const keyHash = hashToken(key);
  const [row] = await db
    .select({
      ...actorColumns,
      keyId: apiKeys.id,
      scopes: apiKeys.scopes,
      lastUsedAt: apiKeys.lastUsedAt,
    })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .leftJoin(roles, eq(roles.id, users.roleId))
    .where(eq(apiKeys.keyHash, keyHash))
    .limit(1);
  if (row?.status !== 'active') return undefined;
  const { keyId, scopes, lastUsedAt, ...actor } = row;
  if (!lastUsedAt || Date.now() - lastUsedAt.getTime() > KEY_TOUCH_MS) {
    await db.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, keyId));
  }
  return { ...actor, tokenHash: keyHash, apiKey: { id: keyId, scopes } };
}

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor;
    /** Set when the call came with an API key instead of a session token. */
    apiKey?: { id: string; scopes: string[] };
  }
}

/**
 * The key path of authenticate: counted against the key's rate limit, then refused (403) unless
 * one of its scopes allows this route (routes/apiKeys/scopes.ts). Everything after runs exactly
 * as for its creator's session, so account scoping and role rules apply unchanged.
 */
async function authenticateKey(request: FastifyRequest, key: string): Promise<void> {
  const found = await actorForApiKey(request.server.db, key);
  if (!found) throw new HttpError(401, 'Unauthenticated');
  const { apiKey, ...actor } = found;
  await request.server.limiters.apiKey.consume(apiKey.id);
  if (!keyMayCall(apiKey.scopes, request.method, request.routeOptions.url)) throw new HttpError(403, API_KEY_SCOPE_FORBIDDEN);
  requestAccount(actor.accountId, { tokenHash: actor.tokenHash });
  request.actor = actor;
  request.apiKey = apiKey;
}

/** preHandler for every console route: 401 in the envelope unless a live token is sent. */
export async function authenticate(request: FastifyRequest): Promise<void> {
  const token = bearerToken(request.headers.authorization);
  if (!token) throw new HttpError(401, 'No authentication token found');
  if (token.startsWith(API_KEY_PREFIX)) return authenticateKey(request, token);
  const actor = await actorForToken(request.server.db, token, request.server.config.sessions);
  if (!actor) throw new HttpError(401, 'Unauthenticated');
  requestAccount(actor.accountId, { tokenHash: actor.tokenHash });
  request.actor = actor;
}
