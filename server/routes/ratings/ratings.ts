import { and, eq, gte, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { type RatingSummaryDto, VISITOR_SIDE_EVENTS, ratingSchema, ratingSettingsSchema, ratingSummaryQuery } from '@parley/shared';
import { accounts, conversations, ratings, users } from '../../db/schema.js';
import { authenticate } from '../../plugins/auth.js';
import { authenticateVisitor, limitWidgetCalls } from '../../plugins/visitorAuth.js';
import { authorize } from '../../policies/index.js';
import { audit } from '../../services/audit.js';
import { visibleConversations } from '../../policies/conversations.js';
import { rooms } from '../../realtime/audience.js';
import { averageOf, rateConversation, ratingDue, ratingState } from './rate.js';
import { okSchema, ratingDtoSchema, ratingStateDtoSchema, ratingSummaryDtoSchema } from '../../presenters/dtoSchemas.js';
import { z } from 'zod';

const SPAN = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
const secured = { security: [{ bearer: [] }] };

/** The widget's rating calls (visitor token, the widget's limits). Registered with prefix '/api'. */
export async function widgetRatingRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  limitWidgetCalls(app);

  app.get('/widget/rating', { schema: { response: { 200: okSchema(ratingStateDtoSchema) }, tags: ['widget'], ...secured }, onRequest: authenticateVisitor }, async (request) => ({
    message: 'success',
    data: await ratingState(app.db, request.visitor),
  }));

  app.post('/widget/rating', { schema: { response: { 201: okSchema(ratingDtoSchema) }, tags: ['widget'], body: ratingSchema, ...secured }, onRequest: authenticateVisitor }, async (request, reply) => {
    const data = await rateConversation(app, request.visitor, request.body);
    return reply.status(201).send({ message: 'success', data });
  });

  // A resolve asks the visitor at once, live (a widget on the REST poll asks when it opens).
  app.events.on(
    'conversation.changed',
    async ({ conversation, visitor, line }) => {
      if (!line || conversation.status !== 'resolved' || app.realtimeClosing()) return;
      if (!(await ratingDue(app.db, conversation))) return;
      app.io.to(rooms.visitor(visitor.id)).emit(VISITOR_SIDE_EVENTS.ratingRequested, { stretch: conversation.openedAt.toISOString() });
    },
    { background: true },
  );
}

/** The console's rating calls. Registered with prefix '/api/vms'. */
export async function consoleRatingRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/ratings/settings', { schema: { response: { 200: okSchema(z.object({ enabled: z.boolean() })) }, tags: ['ratings'], ...secured }, onRequest: authenticate }, async (request) => {
    const [row] = await app.db.select({ enabled: accounts.csatEnabled }).from(accounts).where(eq(accounts.id, request.actor.accountId));
    return { message: 'success', data: { enabled: row?.enabled ?? true } };
  });

  // The role is checked before the body: an Agent learns nothing from a 422.
  const settingsWrite = async (request: FastifyRequest) => authorize(request.actor, 'settings.write');
  app.put('/ratings/settings', { schema: { response: { 200: okSchema(z.object({ enabled: z.boolean() })) }, tags: ['ratings'], body: ratingSettingsSchema, ...secured }, onRequest: authenticate, preValidation: settingsWrite }, async (request) => {
    const [row] = await app.db
      .update(accounts)
      .set({ csatEnabled: request.body.enabled })
      .where(eq(accounts.id, request.actor.accountId))
      .returning({ enabled: accounts.csatEnabled });
    await audit(request, 'settings.updated', 'ratings', { enabled: request.body.enabled });
    return { message: 'success', data: { enabled: row?.enabled ?? request.body.enabled } };
  });

  /** Averages for a range: the account's (an Agent's: the conversations they may see) and per agent. */
  app.get('/ratings/summary', { schema: { response: { 200: okSchema(ratingSummaryDtoSchema) }, tags: ['ratings'], querystring: ratingSummaryQuery, ...secured }, onRequest: authenticate }, async (request) => {
    const { range } = request.query;
    const actor = request.actor;
    const since = new Date(Date.now() - SPAN[range]);
    const where = satisfactionScope(actor, since);
    const [overall, perAgent, [settings]] = await Promise.all([
      averageOf(app.db, where),
      app.db
        .select({ userId: users.id, name: users.name, avg: sql<string>`avg(${ratings.score})`, n: sql<number>`count(*)::int` })
        .from(ratings)
        .innerJoin(users, eq(users.id, ratings.agentId))
        .where(where)
        .groupBy(users.id, users.name)
        .orderBy(users.name),
      app.db.select({ enabled: accounts.csatEnabled }).from(accounts).where(eq(accounts.id, actor.accountId)),
    ]);
    const data: RatingSummaryDto = {
      range,
      enabled: settings?.enabled ?? true,
      ...overall,
      agents: perAgent.map((a) => ({ user_id: a.userId, name: a.name, average: Math.round(Number(a.avg) * 10) / 10, count: Number(a.n) })),
    };
    return { message: 'success', data };
  });
}

/** The ratings an actor may count since a time: the account's, narrowed to visible conversations for an Agent. */
export function satisfactionScope(actor: Parameters<typeof visibleConversations>[0], since: Date) {
  return sql`${and(
    eq(ratings.accountId, actor.accountId),
    gte(ratings.createdAt, since),
    sql`exists (select 1 from ${conversations} where ${conversations.id} = ${ratings.conversationId} and ${visibleConversations(actor)})`,
  )}`;
}
