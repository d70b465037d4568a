import { type SQL, and, asc, desc, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { plans, subscriptions } from '../../db/schema.js';
import { INVALID_PLAN_MESSAGE } from '../../billing/checkout.js';
import { billingStatus, dropPlanChange, presentBillingStatus, schedulePlanChange } from '../../billing/periods.js';
import { scheduleRenewalReminders } from '../../billing/reminders.js';
import { expireSubscriptions } from '../../billing/settle.js';
import { authenticate } from '../../plugins/auth.js';
import { authorize } from '../../policies/index.js';
import { presentPlan } from '../../presenters/plan.js';
import { presentSubscription } from '../../presenters/subscription.js';
import { SPEC_CAP, decodeKey, pageOf, pageQuery } from '../../presenters/page.js';
import { billingSchema, planDtoSchema, subscriptionDtoSchema, subscriptionStatusDtoSchema } from '../../presenters/dtoSchemas.js';

const secured = { security: [{ bearer: [] }] };

const downgradeSchema = z.object({
  plan_id: z
    .union([z.number(), z.string()], { error: INVALID_PLAN_MESSAGE })
    .refine((v) => (typeof v === 'number' ? Number.isInteger(v) && v >= 1 && v <= 2_147_483_647 : /^[1-9]\d{0,8}$/.test(v)), {
      error: INVALID_PLAN_MESSAGE,
    })
    .transform(Number),
});

const statusDescription =
  'The plan in force, the trial and the paid months (a payment made during the trial starts when the trial ends), and a Starter downgrade or cancel scheduled for the end of the period (owner only).';

export default async function plansRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  // Public: the price list is no secret, and the console may call it with or without a token.
  app.get('/plans', { schema: { response: { 200: billingSchema(z.array(planDtoSchema)) }, tags: ['billing'] } }, async () => {
    const rows = await app.db.select().from(plans).orderBy(asc(plans.position), asc(plans.id));
    return { status: 'success', data: rows.map(presentPlan), message: 'Plans retrieved successfully' };
  });

  // The payment history (a row per paid month), paged like every list (PRODUCT.md section 11):
  // `limit` + `cursor` (keyset on created_at, id; index subscriptions_account_idx), answering
  // `next_cursor`, `has_more` and `total`. Without `limit` (SPEC's call) the newest SPEC_CAP rows.
  app.get(
    '/user/subscriptions',
    {
      schema: {
        tags: ['billing'],
        description: `The account's subscription history, newest first. Optional \`limit\` (1-100) and \`cursor\` (the previous page's \`next_cursor\`); without \`limit\` the newest ${SPEC_CAP}. Answers \`next_cursor\`, \`has_more\` and \`total\` besides SPEC's fields.`,
        querystring: pageQuery,
        response: { 200: billingSchema(z.array(subscriptionDtoSchema)).extend({ next_cursor: z.string().nullable(), has_more: z.boolean(), total: z.number() }) },
        ...secured,
      },
      onRequest: authenticate,
    },
    async (request) => {
      authorize(request.actor, 'billing.manage');
      const { accountId } = request.actor;
      // Periods that ended show as expired, not as active.
      await expireSubscriptions(app.db, accountId, new Date());
      const limit = request.query.limit ?? SPEC_CAP;
      let after: SQL | undefined;
      if (request.query.cursor !== undefined) {
        const [at, id] = decodeKey(request.query.cursor, 'tn');
        after = sql`(${subscriptions.createdAt}, ${subscriptions.id}) < (${at}::timestamptz, ${id}::int)`;
      }
      const rows = await app.db
        .select({ row: subscriptions, key: sql<string>`${subscriptions.createdAt}::text` })
        .from(subscriptions)
        .where(and(eq(subscriptions.accountId, accountId), after))
        .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
        .limit(limit + 1);
      const page = pageOf(rows, limit, (r) => [r.key, r.row.id]);
      const [count] = await app.db.select({ n: sql<number>`count(*)::int` }).from(subscriptions).where(eq(subscriptions.accountId, accountId));
      return {
        status: 'success',
        data: page.rows.map((r) => presentSubscription(r.row)),
        message: 'Subscriptions retrieved successfully',
        next_cursor: page.nextCursor,
        has_more: page.hasMore,
        total: count?.n ?? 0,
      };
    },
  );

  app.get(
    '/user/subscription',
    { schema: { response: { 200: billingSchema(subscriptionStatusDtoSchema) }, tags: ['billing'], description: statusDescription, ...secured }, onRequest: authenticate },
    async (request) => {
      authorize(request.actor, 'billing.manage');
      const status = await billingStatus(app.db, request.actor.accountId, new Date());
      return { status: 'success', data: presentBillingStatus(status), message: 'Subscription retrieved successfully' };
    },
  );

  app.post(
    '/user/subscription/downgrade',
    {
      schema: { response: { 200: billingSchema(subscriptionStatusDtoSchema) },
        tags: ['billing'],
        description: 'Choose Starter from the end of the period in force (paid months, else the trial). Owner only; 409 when already on Starter.',
        body: downgradeSchema,
        ...secured,
      },
      onRequest: authenticate,
    },
    async (request) => {
      authorize(request.actor, 'billing.manage');
      const { accountId, id } = request.actor;
      const status = await schedulePlanChange(app.db, { accountId, userId: id, kind: 'downgrade', planId: request.body.plan_id }, new Date());
      return { status: 'success', data: presentBillingStatus(status), message: 'Your plan changes to Starter at the end of the current period' };
    },
  );

  app.post(
    '/user/subscription/cancel',
    {
      schema: { response: { 200: billingSchema(subscriptionStatusDtoSchema) },
        tags: ['billing'],
        description: 'Cancel at the end of the period in force: the paid plan (or trial) stays until then, Starter applies after. Owner only.',
        ...secured,
      },
      onRequest: authenticate,
    },
    async (request) => {
      authorize(request.actor, 'billing.manage');
      const { accountId, id } = request.actor;
      const status = await schedulePlanChange(app.db, { accountId, userId: id, kind: 'cancel' }, new Date());
      return { status: 'success', data: presentBillingStatus(status), message: 'Your subscription ends at the end of the current period' };
    },
  );

  app.delete(
    '/user/subscription/scheduled-change',
    {
      schema: { response: { 200: billingSchema(subscriptionStatusDtoSchema) }, tags: ['billing'], description: 'Keep the current plan: drops a scheduled downgrade or cancel. Owner only; 409 when none.', ...secured },
      onRequest: authenticate,
    },
    async (request) => {
      authorize(request.actor, 'billing.manage');
      const now = new Date();
      const status = await dropPlanChange(app.db, request.actor.accountId, now);
      // The renewal reminders apply again (they skip while a change is scheduled).
      await scheduleRenewalReminders(app, request.actor.accountId, now);
      return { status: 'success', data: presentBillingStatus(status), message: 'Your plan stays as it is' };
    },
  );
}
