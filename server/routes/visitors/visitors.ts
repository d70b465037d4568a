import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { authenticate } from '../../plugins/auth.js';
import { and, desc, eq, gt, ne } from 'drizzle-orm';
import { visitorCounts } from '../../db/schema.js';
import { listVisitors, visitorListQuery } from './visitorList.js';
import { okSchema, visitorListAnswerSchema } from '../../presenters/dtoSchemas.js';
import { z } from 'zod';

export default async function visitorsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/visitor',
    {
      schema: {
        tags: ['visitors'],
        summary: 'Visitors, newest first (paged)',
        description:
          'With `limit` (1-100) and `cursor`: a page and `next_cursor`. Without `limit` (the SPEC call): the newest 500 and `has_more`. Filters `q` (name/email words, prefixes), `online`, `country`, `has_conversation`. `total` counts what matches and the caller may see; `countries` the distinct known countries of the account.',
        querystring: visitorListQuery,
        response: { 200: visitorListAnswerSchema },
        security: [{ bearer: [] }],
      },
      onRequest: authenticate,
    },
    async (request) => listVisitors(app, request.actor, request.query),
  );

  // The country filter's choices: the account's known countries, most visitors first (from the
  // counters, like the "Countries" card; a number that reveals no row, so every role reads it).
  app.get(
    '/visitor/countries',
    { schema: { tags: ['visitors'], summary: "The account's visitor countries and how many visitors each", response: { 200: okSchema(z.array(z.object({ country: z.string(), count: z.number() }))) }, security: [{ bearer: [] }] }, onRequest: authenticate },
    async (request) => {
      const rows = await app.db
        .select({ country: visitorCounts.country, count: visitorCounts.n })
        .from(visitorCounts)
        .where(and(eq(visitorCounts.accountId, request.actor.accountId), ne(visitorCounts.country, ''), gt(visitorCounts.n, 0)))
        .orderBy(desc(visitorCounts.n), visitorCounts.country);
      return { message: 'success', data: rows };
    },
  );
}
