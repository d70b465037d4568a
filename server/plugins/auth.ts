import { eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/client.js';
import { authTokens, roles, users } from '../db/schema.js';
import { HttpError } from '../errors.js';
import type { Actor } from '../policies/actor.js';
import { hashToken } from '../services/secrets.js';
import { type SessionLifetime, sessionExpired, touchAfterMs } from '../services/sessions.js';
import { requestAccount } from './dbLanes.js';

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S{1,512})$/i.exec(header.trim());
  return match?.[1];
}

/** The console user behind a bearer token, or undefined when the token is unknown, revoked or expired. */
export async function actorForToken(db: Db, token: string, sessions: SessionLifetime): Promise<Actor | undefined> {
  const tokenHash = hashToken(token);
  const [row] = await db
    .select({
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

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor;
  }
}

/** preHandler for every console route: 401 in the envelope unless a live token is sent. */
export async function authenticate(request: FastifyRequest): Promise<void> {
  const token = bearerToken(request.headers.authorization);
  if (!token) throw new HttpError(401, 'No authentication token found');
  const actor = await actorForToken(request.server.db, token, request.server.config.sessions);
  if (!actor) throw new HttpError(401, 'Unauthenticated');
  requestAccount(actor.accountId, { tokenHash: actor.tokenHash });
  request.actor = actor;
}
