import { and, asc, eq, notExists, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_TRIGGERS, TOO_MANY_TRIGGERS, TRIGGER_ALREADY_SHOWN, type TriggerDto, triggerSchema, widgetSettingsQuery } from '@parley/shared';
import { accounts, proactiveFires, proactiveTriggers } from '../../db/schema.js';
import { HttpError, notFound } from '../../errors.js';
import { authenticate, bearerToken } from '../../plugins/auth.js';
import { authenticateVisitor, limitWidgetCalls, visitorForToken } from '../../plugins/visitorAuth.js';
import { authorize } from '../../policies/index.js';
import { okSchema, successSchema, triggerDtoSchema } from '../../presenters/dtoSchemas.js';

/**
 * Proactive messages (issue 13): owner/Admin define triggers ('inbox.manage', like canned replies;
 * everyone reads them); the widget fetches the enabled ones and, when one is due, records that it
 * fired: at most once per visitor per (UTC) day, enforced by proactive_fires' primary key.
 */
type Row = typeof proactiveTriggers.$inferSelect;
const present = (t: Row): TriggerDto => ({
  id: t.id,
  name: t.name,
  url_pattern: t.urlPattern,
  seconds_on_page: t.secondsOnPage,
  nth_page: t.nthPage,
  returning_only: t.returningOnly,
  message: t.message,
  sender_name: t.senderName,
  sender_avatar: t.senderAvatar,
  open_panel: t.openPanel,
  enabled: t.enabled,
});
const columns = (b: z.output<typeof triggerSchema>) => ({
  name: b.name,
  urlPattern: b.url_pattern,
  secondsOnPage: b.seconds_on_page,
  nthPage: b.nth_page,
  returningOnly: b.returning_only,
  message: b.message,
  senderName: b.sender_name,
  senderAvatar: b.sender_avatar,
  openPanel: b.open_panel,
  enabled: b.enabled,
});
const idParams = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });
const secured = { security: [{ bearer: [] }] };
/** A visitor first seen this long ago is "returning". */
const RETURNING_AFTER_MS = 30 * 60_000;
const today = () => new Date().toISOString().slice(0, 10);

export async function consoleTriggerRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // The role before the body: an Agent learns nothing from a 422.
  const manage = async (request: FastifyRequest) => authorize(request.actor, 'inbox.manage');

  app.get('/triggers', { schema: { response: { 200: okSchema(z.array(triggerDtoSchema)) }, tags: ['proactive'], ...secured }, onRequest: authenticate }, async (request) => {
    const rows = await app.db.select().from(proactiveTriggers).where(eq(proactiveTriggers.accountId, request.actor.accountId)).orderBy(asc(proactiveTriggers.id));
    return { message: 'success', data: rows.map(present) };
  });

  app.post('/triggers', { schema: { response: { 201: okSchema(triggerDtoSchema) }, tags: ['proactive'], body: triggerSchema, ...secured }, onRequest: authenticate, preValidation: manage }, async (request, reply) => {
    const accountId = request.actor.accountId;
    const row = await app.db.transaction(async (tx) => {
      // Serialises creates of one account, so the cap holds under concurrency.
      await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for('update');
      const [count] = await tx.select({ n: sql<number>`count(*)::int` }).from(proactiveTriggers).where(eq(proactiveTriggers.accountId, accountId));
      if (Number(count?.n ?? 0) >= MAX_TRIGGERS) throw new HttpError(422, TOO_MANY_TRIGGERS, { name: [TOO_MANY_TRIGGERS] });
      const [created] = await tx.insert(proactiveTriggers).values({ accountId, ...columns(request.body) }).returning();
      return created!;
    });
    return reply.status(201).send({ message: 'success', data: present(row) });
  });

  app.put('/triggers/:id', { schema: { response: { 200: okSchema(triggerDtoSchema) }, tags: ['proactive'], params: idParams, body: triggerSchema, ...secured }, onRequest: authenticate, preValidation: manage }, async (request) => {
    const [row] = await app.db
      .update(proactiveTriggers)
      .set({ ...columns(request.body), updatedAt: new Date() })
      .where(and(eq(proactiveTriggers.id, request.params.id), eq(proactiveTriggers.accountId, request.actor.accountId)))
      .returning();
    if (!row) throw notFound('Proactive message not found');
    return { message: 'success', data: present(row) };
  });

  app.delete('/triggers/:id', { schema: { response: { 200: successSchema }, tags: ['proactive'], params: idParams, ...secured }, onRequest: authenticate, preValidation: manage }, async (request) => {
    const [row] = await app.db
      .delete(proactiveTriggers)
      .where(and(eq(proactiveTriggers.id, request.params.id), eq(proactiveTriggers.accountId, request.actor.accountId)))
      .returning({ id: proactiveTriggers.id });
    if (!row) throw notFound('Proactive message not found');
    return { message: 'success' };
  });
}

export async function widgetTriggerRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  limitWidgetCalls(app);

  /**
   * GET /api/widget/triggers?unique_code=: the enabled triggers this page may show. With the
   * visitor's token: without those already shown to them today, and returning-visitor ones only
   * for a returning visitor; without (a first visit): none of the returning-visitor ones.
   */
  app.get('/widget/triggers', { schema: { response: { 200: okSchema(z.array(triggerDtoSchema)) }, tags: ['widget'], querystring: widgetSettingsQuery } }, async (request) => {
    const [account] = await app.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.widgetKey, request.query.unique_code));
    if (!account) throw notFound('Unknown widget');
    const token = bearerToken(request.headers.authorization);
    const visitor = token ? await visitorForToken(app.db, token) : undefined;
    const mine = visitor && visitor.accountId === account.id ? visitor : undefined;
    const returning = !!mine && mine.createdAt.getTime() < Date.now() - RETURNING_AFTER_MS;
    const rows = await app.db
      .select()
      .from(proactiveTriggers)
      .where(
        and(
          eq(proactiveTriggers.accountId, account.id),
          eq(proactiveTriggers.enabled, true),
          returning ? undefined : eq(proactiveTriggers.returningOnly, false),
          mine
            ? notExists(
                app.db
                  .select({ one: sql`1` })
                  .from(proactiveFires)
                  .where(and(eq(proactiveFires.triggerId, proactiveTriggers.id), eq(proactiveFires.visitorId, mine.id), eq(proactiveFires.day, today()))),
              )
            : undefined,
        ),
      )
      .orderBy(asc(proactiveTriggers.id));
    return { message: 'success', data: rows.map(present) };
  });

  /** POST /api/widget/triggers/:id/fire: the widget is about to show it; 409 when it already did today. */
  app.post('/widget/triggers/:id/fire', { schema: { response: { 201: successSchema }, tags: ['widget'], params: idParams, ...secured }, onRequest: authenticateVisitor }, async (request, reply) => {
    const visitor = request.visitor;
    const [trigger] = await app.db
      .select({ id: proactiveTriggers.id })
      .from(proactiveTriggers)
      .where(and(eq(proactiveTriggers.id, request.params.id), eq(proactiveTriggers.accountId, visitor.accountId), eq(proactiveTriggers.enabled, true)));
    if (!trigger) throw notFound('Proactive message not found');
    const [fired] = await app.db.insert(proactiveFires).values({ triggerId: trigger.id, visitorId: visitor.id, day: today() }).onConflictDoNothing().returning({ day: proactiveFires.day });
    if (!fired) throw new HttpError(409, TRIGGER_ALREADY_SHOWN);
    return reply.status(201).send({ message: 'success' });
  });
}
