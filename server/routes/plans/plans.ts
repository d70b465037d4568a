import { asc, desc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { plans, subscriptions } from '../../db/schema.js';
import { expireSubscriptions } from '../../billing/settle.js';
import { authenticate } from '../../plugins/auth.js';
import { authorize } from '../../policies/index.js';
import { presentPlan } from '../../presenters/plan.js';
import { presentSubscription } from '../../presenters/subscription.js';

const secured = { security: [{ bearer: [] }] };

export default async function plansRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  // Public: the price list is no secret, and the console may call it with or without a token.
  app.get('/plans', { schema: { tags: ['billing'] } }, async () => {
    const rows = await app.db.select().from(plans).orderBy(asc(plans.position), asc(plans.id));
    return { status: 'success', data: rows.map(presentPlan), message: 'Plans retrieved successfully' };
  });

  app.get('/user/subscriptions', { schema: { tags: ['billing'], ...secured }, onRequest: authenticate }, async (request) => {
    authorize(request.actor, 'billing.manage');
    // Periods that ended show as expired, not as active.
    await expireSubscriptions(app.db, request.actor.accountId, new Date());
    const rows = await app.db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.accountId, request.actor.accountId))
      .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id));
    return { status: 'success', data: rows.map(presentSubscription), message: 'Subscriptions retrieved successfully' };
  });
}
