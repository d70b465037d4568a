import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AiSourceUsageDto } from '@parley/shared';
import { aiAnswers, aiPassages } from '../../db/schema.js';
import { authenticate } from '../../plugins/auth.js';
import { authorize } from '../../policies/index.js';
import { aiSourceUsageDtoSchema, okSchema } from '../../presenters/dtoSchemas.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_IDS = 100;
const idsQuery = z.object({
  ids: z
    .string()
    .transform((s) => s.split(',').filter(Boolean))
    .refine((ids) => ids.length <= MAX_IDS && ids.every((id) => UUID.test(id)), { message: `ids must be at most ${MAX_IDS} source ids, comma separated` }),
});

/**
 * Issue 17, "which source answered what": per source of the console's page (`ids`), how often its
 * passages answered (uses), the team's helpful / not helpful feedback on them, and the widget
 * visitors' votes on the answers it gave (shown only, never re-weighting). Owner and Admin only,
 * like the sources; another account's ids simply have no figures.
 */
export default async function chatbotSourceUsageRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/chatbot/source-usage',
    { schema: { tags: ['chatbot'], querystring: idsQuery, response: { 200: okSchema(z.record(z.string(), aiSourceUsageDtoSchema)) }, security: [{ bearer: [] }] }, onRequest: authenticate },
    async (request) => {
      const { actor } = request;
      authorize(actor, 'ai.manage');
      const ids = request.query.ids;
      const data: Record<string, AiSourceUsageDto> = {};
      for (const id of ids) data[id] = { uses: 0, helpful: 0, not_helpful: 0, visitor_helpful: 0, visitor_not_helpful: 0 };
      if (ids.length === 0) return { message: 'success', data };
      const mine = and(eq(aiPassages.accountId, actor.accountId), inArray(aiPassages.sourceId, ids));
      const [sums, votes] = await Promise.all([
        app.db
          .select({
            id: aiPassages.sourceId,
            uses: sql<string>`coalesce(sum(${aiPassages.uses}), 0)`,
            helpful: sql<string>`coalesce(sum(${aiPassages.helpful}), 0)`,
            notHelpful: sql<string>`coalesce(sum(${aiPassages.notHelpful}), 0)`,
          })
          .from(aiPassages)
          .where(mine)
          .groupBy(aiPassages.sourceId),
        app.db
          .select({ id: aiPassages.sourceId, vote: aiAnswers.vote, n: sql<string>`count(*)` })
          .from(aiAnswers)
          .innerJoin(aiPassages, eq(aiPassages.id, aiAnswers.passageId))
          .where(and(mine, isNotNull(aiAnswers.vote)))
          .groupBy(aiPassages.sourceId, aiAnswers.vote),
      ]);
      for (const s of sums) Object.assign(data[s.id]!, { uses: Number(s.uses), helpful: Number(s.helpful), not_helpful: Number(s.notHelpful) });
      for (const v of votes) data[v.id]![v.vote === 'helpful' ? 'visitor_helpful' : 'visitor_not_helpful'] = Number(v.n);
      return { message: 'success', data };
    },
  );
}
