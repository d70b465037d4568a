import { and, count, desc, eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_WEBHOOK_ENDPOINTS, TOO_MANY_WEBHOOKS, WEBHOOK_EVENTS, WEBHOOK_URL_INVALID, webhookSchema } from '@parley/shared';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema.js';
import { notFound, validationError } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { type Actor, authorize } from '../../policies/index.js';
import { presentWebhookDelivery, presentWebhookEndpoint } from '../../presenters/integrations.js';
import { audit } from '../../services/audit.js';
import { checkUrl } from '../../services/outbound.js';
import { requireVerifiedOwner } from '../auth/verifyEmail.js';
import { newWebhookSecret } from '../../webhooks/sign.js';
import { forgetWebhookEndpoints } from '../../webhooks/enqueue.js';

const secured = { security: [{ bearer: [] }] };
const tags = ['integrations'];
const NOT_FOUND = 'Webhook endpoint not found';
const DELIVERY_NOT_FOUND = 'Delivery not found';
/** The delivery log shows this many, newest first. */
const LOG_SIZE = 100;

const endpointDto = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  status: z.enum(['active', 'paused']),
  failing_since: z.string().nullable(),
  created_at: z.string(),
});
const deliveryDto = z.object({
  id: z.string(),
  event: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number(),
  response_code: z.number().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  last_attempt_at: z.string().nullable(),
});
const idParams = z.object({ id: z.string() });
const isUuid = (s: string) => z.uuid().safeParse(s).success;
const patchSchema = webhookSchema.partial().extend({ status: z.enum(['active', 'paused'], { error: 'Status must be active or paused' }).optional() });

/**
 * Outbound webhooks (issue 14): owner and Admin register endpoints for events; deliveries go out
 * signed, in order per conversation, with retries (server/webhooks/). The signing secret is
 * answered once, at creation. Another account's endpoint is 404.
 */
export default async function webhooksRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const manage = async (request: { actor: Actor }) => authorize(request.actor, 'integrations.manage');
  const policy = app.config.outbound;
  const schemes = policy.allowPrivate ? ['https:', 'http:'] : ['https:'];

  /** The URL as stored, or a 422 on `url`: https (http too when the operator allows private addresses), no private literal host. */
  const checkedUrl = (raw: string): string => {
    const checked = checkUrl(raw, policy, schemes);
    if (checked instanceof URL) return checked.toString();
    throw validationError({ url: [checked.refused.startsWith('The URL must start') || checked.refused === 'The URL is not valid.' ? WEBHOOK_URL_INVALID : checked.refused] });
  };

  const findEndpoint = async (request: FastifyRequest & { actor: Actor }, id: string) => {
    if (!isUuid(id)) throw notFound(NOT_FOUND);
    const [row] = await app.db
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.accountId, request.actor.accountId)));
    if (!row) throw notFound(NOT_FOUND);
    return row;
  };

  /** Wakes the delivery queue of every ordering key with pending deliveries (after a resume or a resend). */
  const kick = async (accountId: string, endpointId: string) => {
    const keys = await app.db
      .selectDistinct({ key: webhookDeliveries.orderingKey })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending')));
    for (const { key } of keys) await app.jobs.enqueue('webhooks.deliver', { accountId, endpointId, orderingKey: key });
  };

  app.get(
    '/webhooks',
    { schema: { tags, summary: 'The account’s webhook endpoints (owner/Admin)', response: { 200: z.object({ message: z.literal('success'), data: z.array(endpointDto) }) }, ...secured }, onRequest: [authenticate, manage] },
    async (request) => {
      const rows = await app.db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.accountId, request.actor.accountId))
        .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
      return { message: 'success' as const, data: rows.map(presentWebhookEndpoint) };
    },
  );

  app.post(
    '/webhooks',
    {
      schema: {
        tags,
        summary: 'Register an endpoint (owner/Admin; the owner’s email must be verified); `secret` is shown only in this answer',
        body: webhookSchema,
        response: { 201: z.object({ message: z.literal('success'), data: endpointDto.extend({ secret: z.string() }) }) },
        ...secured,
      },
      onRequest: [authenticate, manage],
    },
    async (request, reply) => {
      const { actor } = request;
      const url = checkedUrl(request.body.url);
      await requireVerifiedOwner(app.db, actor.accountId);
      const [{ n } = { n: 0 }] = await app.db.select({ n: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.accountId, actor.accountId));
      if (n >= MAX_WEBHOOK_ENDPOINTS) throw validationError({ _: [TOO_MANY_WEBHOOKS] });
      const secret = newWebhookSecret();
      const row = await app.db.transaction(async (tx) => {
        const [inserted] = await tx.insert(webhookEndpoints).values({ accountId: actor.accountId, createdBy: actor.id, url, events: request.body.events, secret: app.secrets.seal(secret) }).returning();
        if (!inserted) throw new Error('webhook insert returned nothing');
        await audit(request, 'webhook.created', `webhook:${inserted.id}`, { url, events: inserted.events }, tx);
        return inserted;
      });
      forgetWebhookEndpoints(app.db, actor.accountId);
      reply.code(201);
      return { message: 'success' as const, data: { ...presentWebhookEndpoint(row), secret } };
    },
  );

  app.patch(
    '/webhooks/:id',
    {
      schema: {
        tags,
        summary: 'Change an endpoint’s URL or events, pause it, or resume it (owner/Admin); a resume sends what waited, in order',
        params: idParams,
        body: patchSchema,
        response: { 200: z.object({ message: z.literal('success'), data: endpointDto }) },
        ...secured,
      },
      onRequest: [authenticate, manage],
    },
    async (request) => {
      const current = await findEndpoint(request, request.params.id);
      const { url, events, status } = request.body;
      const changes: Partial<typeof webhookEndpoints.$inferInsert> = { updatedAt: new Date() };
      if (url !== undefined) changes.url = checkedUrl(url);
      if (events !== undefined) changes.events = events;
      if (status === 'active' && current.status === 'paused') Object.assign(changes, { status: 'active', pausedAt: null, failingSince: null });
      if (status === 'paused' && current.status === 'active') Object.assign(changes, { status: 'paused', pausedAt: new Date() });
      const row = await app.db.transaction(async (tx) => {
        const [updated] = await tx.update(webhookEndpoints).set(changes).where(eq(webhookEndpoints.id, current.id)).returning();
        await audit(request, 'webhook.updated', `webhook:${current.id}`, { url: changes.url, events: changes.events, status: changes.status }, tx);
        return updated!;
      });
      forgetWebhookEndpoints(app.db, current.accountId);
      if (row.status === 'active' && current.status === 'paused') await kick(row.accountId, row.id);
      return { message: 'success' as const, data: presentWebhookEndpoint(row) };
    },
  );

  app.delete(
    '/webhooks/:id',
    { schema: { tags, summary: 'Delete an endpoint and its delivery log (owner/Admin)', params: idParams, response: { 200: z.object({ message: z.literal('success') }) }, ...secured }, onRequest: [authenticate, manage] },
    async (request) => {
      const current = await findEndpoint(request, request.params.id);
      await app.db.transaction(async (tx) => {
        await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, current.id));
        await audit(request, 'webhook.deleted', `webhook:${current.id}`, { url: current.url }, tx);
      });
      forgetWebhookEndpoints(app.db, current.accountId);
      return { message: 'success' as const };
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        summary: `An endpoint’s delivery log, newest first (the last ${LOG_SIZE})`,
        params: idParams,
        response: { 200: z.object({ message: z.literal('success'), data: z.array(deliveryDto) }) },
        ...secured,
      },
      onRequest: [authenticate, manage],
    },
    async (request) => {
      const endpoint = await findEndpoint(request, request.params.id);
      const rows = await app.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.id)).orderBy(desc(webhookDeliveries.seq)).limit(LOG_SIZE);
      return { message: 'success' as const, data: rows.map(presentWebhookDelivery) };
    },
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/resend',
    {
      schema: {
        tags,
        summary: 'Send a delivery again (a new log line with the same event id, so a receiver can tell it is the same event)',
        params: z.object({ id: z.string(), deliveryId: z.string() }),
        response: { 201: z.object({ message: z.literal('success'), data: deliveryDto }) },
        ...secured,
      },
      onRequest: [authenticate, manage],
    },
    async (request, reply) => {
      const endpoint = await findEndpoint(request, request.params.id);
      const deliveryId = request.params.deliveryId;
      if (!isUuid(deliveryId)) throw notFound(DELIVERY_NOT_FOUND);
      const [original] = await app.db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpoint.id)));
      if (!original) throw notFound(DELIVERY_NOT_FOUND);
      const [copy] = await app.db
        .insert(webhookDeliveries)
        .values({ endpointId: endpoint.id, accountId: endpoint.accountId, event: original.event, payload: original.payload, orderingKey: original.orderingKey })
        .returning();
      await app.jobs.enqueue('webhooks.deliver', { accountId: endpoint.accountId, endpointId: endpoint.id, orderingKey: original.orderingKey });
      reply.code(201);
      return { message: 'success' as const, data: presentWebhookDelivery(copy!) };
    },
  );
}
