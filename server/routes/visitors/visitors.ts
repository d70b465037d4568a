import { type SQL, and, desc, eq, isNull, or } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { conversations, visitors } from '../../db/schema.js';
import { authenticate } from '../../plugins/auth.js';
import { visibleConversations } from '../../policies/conversations.js';
import type { Actor } from '../../policies/index.js';
import { presentVisitor } from '../../presenters/visitor.js';

/**
 * Visitors an actor may see, for a query of visitors LEFT JOIN conversations: the account's
 * visitors with no conversation yet, or whose conversation the actor may see.
 */
export function visibleVisitors(actor: Actor): SQL {
  return and(eq(visitors.accountId, actor.accountId), or(isNull(conversations.id), visibleConversations(actor))) as SQL;
}

export default async function visitorsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/visitor',
    { schema: { tags: ['visitors'], security: [{ bearer: [] }] }, preHandler: authenticate },
    async (request) => {
      const rows = await app.db
        .select({ visitor: visitors })
        .from(visitors)
        .leftJoin(conversations, eq(conversations.visitorId, visitors.id))
        .where(visibleVisitors(request.actor))
        .orderBy(desc(visitors.createdAt), desc(visitors.id));
      return { message: 'success', data: rows.map((r) => presentVisitor(r.visitor)) };
    },
  );
}
