import { and, desc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authTokens, users } from '../../db/schema.js';
import { notFound } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { type Actor, authorize } from '../../policies/index.js';
import { audit } from '../../services/audit.js';
import { deviceLabel } from '../audit/audit.js';
import { okSchema, successSchema } from '../../presenters/dtoSchemas.js';

const secured = { security: [{ bearer: [] }] };
const tags = ['auth'];
const idParams = z.object({ id: z.string() });
const SESSION_NOT_FOUND = 'Session not found';
const MEMBER_NOT_FOUND = 'Team member not found';

/** A positive integer id from the path, or 404 (never a hint). */
const parseId = (raw: string, what: string): number => {
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : 0;
  if (!(id > 0)) throw notFound(what);
  return id;
};

/**
 * Active sessions (issue 14): each user lists their own (device from the user agent, IP, last
 * used) and ends any of them; the owner signs a member out everywhere. Every end goes through
 * the one revocation path (`sessions.revoked`), which also closes live sockets.
 */
export default async function sessionsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const ownerOnly = async (request: { actor: Actor }) => authorize(request.actor, 'security.manage');

  app.get('/sessions', { schema: { response: { 200: okSchema(z.array(z.object({ id: z.number(), device: z.string(), ip: z.string(), created_at: z.string(), last_used_at: z.string(), current: z.boolean() }))) }, tags, summary: 'This user’s active sessions, most recently used first', ...secured }, onRequest: authenticate }, async (request) => {
    const rows = await app.db
      .select()
      .from(authTokens)
      .where(eq(authTokens.userId, request.actor.id))
      .orderBy(desc(authTokens.lastUsedAt), desc(authTokens.id));
    const data = rows.map((r) => ({
      id: r.id,
      device: deviceLabel(r.userAgent),
      ip: r.ip,
      created_at: r.createdAt.toISOString(),
      last_used_at: r.lastUsedAt.toISOString(),
      current: r.tokenHash === request.actor.tokenHash,
    }));
    return { message: 'success', data };
  });

  app.delete('/sessions/:id', { schema: { response: { 200: successSchema }, tags, summary: 'End one of this user’s sessions', params: idParams, ...secured }, onRequest: authenticate }, async (request) => {
    const id = parseId(request.params.id, SESSION_NOT_FOUND);
    const [gone] = await app.db
      .delete(authTokens)
      .where(and(eq(authTokens.id, id), eq(authTokens.userId, request.actor.id)))
      .returning({ tokenHash: authTokens.tokenHash });
    if (!gone) throw notFound(SESSION_NOT_FOUND);
    await app.events.emit('sessions.revoked', { tokenHash: gone.tokenHash });
    await audit(request, 'session.revoked', `session:${id}`);
    return { message: 'success' };
  });

  app.post('/team/:id/sign-out', { schema: { response: { 200: successSchema.extend({ sessions_ended: z.number() }) }, tags: ['team'], summary: 'Sign a team member out everywhere (owner)', params: idParams, ...secured }, onRequest: [authenticate, ownerOnly] }, async (request) => {
    const id = parseId(request.params.id, MEMBER_NOT_FOUND);
    const [member] = await app.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, id), eq(users.accountId, request.actor.accountId), eq(users.type, 'team_member')));
    if (!member) throw notFound(MEMBER_NOT_FOUND);
    const ended = await app.db.delete(authTokens).where(eq(authTokens.userId, id)).returning({ id: authTokens.id });
    await app.events.emit('sessions.revoked', { userId: id });
    await audit(request, 'member.signed_out', `user:${id}`, { sessions: ended.length });
    return { message: 'success', sessions_ended: ended.length };
  });
}
