import { desc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { conversations, visitors } from '../../db/schema.js';
import { authenticate } from '../../plugins/auth.js';
import { visibleVisitors } from '../../policies/conversations.js';
import { presentVisitor } from '../../presenters/visitor.js';

export default async function visitorsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/visitor',
    { schema: { tags: ['visitors'], security: [{ bearer: [] }] }, onRequest: authenticate },
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
