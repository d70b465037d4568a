import { eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/client.js';
import { authTokens, roles, users } from '../db/schema.js';
import { HttpError } from '../errors.js';
import type { Actor } from '../policies/actor.js';
import { hashToken } from '../services/secrets.js';

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S{1,512})$/i.exec(header.trim());
  return match?.[1];
}

/** The console user behind a bearer token, or undefined when the token is unknown or revoked. */
export async function actorForToken(db: Db, token: string): Promise<Actor | undefined> {
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
    })
    .from(authTokens)
    .innerJoin(users, eq(users.id, authTokens.userId))
    .leftJoin(roles, eq(roles.id, users.roleId))
    .where(eq(authTokens.tokenHash, tokenHash))
    .limit(1);
  if (!row) return undefined;
  const { lastUsedAt, ...actor } = row;
  // Presence of agents ("is anyone online?") reads last_used_at; refresh it at most once a minute.
  if (Date.now() - lastUsedAt.getTime() > 60_000) {
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
  const actor = await actorForToken(request.server.db, token);
  if (!actor) throw new HttpError(401, 'Unauthenticated');
  request.actor = actor;
}
