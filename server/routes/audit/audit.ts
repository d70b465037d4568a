import { and, desc, eq, gte, lt, lte, type SQL } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { type AuditEntryDto, auditQuerySchema } from '@parley/shared';
import { auditLog, users } from '../../db/schema.js';
import { authenticate } from '../../plugins/auth.js';
import { type Actor, authorize } from '../../policies/index.js';
import { decodeKey, pageOf, pageQuery } from '../../presenters/page.js';
import { parseUserAgent } from '../../services/userAgent.js';
import { auditEntryDtoSchema, pageSchema } from '../../presenters/dtoSchemas.js';

const secured = { security: [{ bearer: [] }] };
const tags = ['audit'];
/** A page without `limit`: the newest 50 entries. */
const DEFAULT_LIMIT = 50;

/** "Chrome on macOS (Desktop)" from a user agent; '' when none was sent. */
export function deviceLabel(userAgent: string): string {
  const { browser, os, device } = parseUserAgent(userAgent);
  if (!device) return '';
  const name = [browser, os].filter(Boolean).join(' on ');
  return name ? `${name} (${device})` : device;
}

/**
 * The audit log (issue 14): the owner reads it, newest first, filtered by action, actor and time,
 * paged with limit + cursor (keyset on id). Only the account's own entries, ever.
 */
export default async function auditRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const ownerOnly = async (request: { actor: Actor }) => authorize(request.actor, 'audit.read');

  app.get(
    '/audit-log',
    { schema: { response: { 200: pageSchema(auditEntryDtoSchema) }, tags, summary: 'The account’s audit log, newest first (owner)', querystring: pageQuery.extend(auditQuerySchema.shape), ...secured }, onRequest: [authenticate, ownerOnly] },
    async (request) => {
      const q = request.query;
      const limit = q.limit ?? DEFAULT_LIMIT;
      const where: SQL[] = [eq(auditLog.accountId, request.actor.accountId)];
      if (q.cursor !== undefined) where.push(lt(auditLog.id, decodeKey(q.cursor, 'n')[0] as number));
      if (q.action !== undefined) where.push(eq(auditLog.action, q.action));
      if (q.actor_user_id !== undefined) where.push(eq(auditLog.actorUserId, q.actor_user_id));
      if (q.from !== undefined) where.push(gte(auditLog.createdAt, new Date(q.from)));
      if (q.to !== undefined) where.push(lte(auditLog.createdAt, new Date(q.to)));
      const rows = await app.db
        .select({ entry: auditLog, name: users.name })
        .from(auditLog)
        .leftJoin(users, eq(users.id, auditLog.actorUserId))
        .where(and(...where))
        .orderBy(desc(auditLog.id))
        .limit(limit + 1);
      const page = pageOf(rows, limit, (r) => [r.entry.id]);
      const data: AuditEntryDto[] = page.rows.map(({ entry: e, name }) => ({
        id: e.id,
        action: e.action,
        target: e.target,
        actor: { id: e.actorUserId, email: e.actorEmail, name },
        ip: e.ip,
        user_agent: e.userAgent,
        device: deviceLabel(e.userAgent),
        detail: e.detail,
        created_at: e.createdAt.toISOString(),
      }));
      return { message: 'success' as const, data, next_cursor: page.nextCursor, has_more: page.hasMore };
    },
  );
}
