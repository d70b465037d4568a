import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { retentionSchema } from '@parley/shared';
import { eraseVisitor, exportVisitor } from '../../commands/visitorData.js';
import { accounts } from '../../db/schema.js';
import { notFound } from '../../errors.js';
import { scheduleRetention } from '../../jobs/retention.js';
import { authenticate } from '../../plugins/auth.js';
import { type Actor, authorize } from '../../policies/index.js';
import { audit } from '../../services/audit.js';
import { okSchema } from '../../presenters/dtoSchemas.js';

const secured = { security: [{ bearer: [] }] };
const tags = ['gdpr'];
const idParams = z.object({ id: z.string() });
const VISITOR_NOT_FOUND = 'Visitor not found';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A visitor id from the path; anything else is the same 404 as an unknown or foreign visitor. */
const visitorId = (raw: string): string => {
  if (!UUID.test(raw)) throw notFound(VISITOR_NOT_FOUND);
  return raw.toLowerCase();
};

/**
 * Visitors' data (issue 14, GDPR): owner/Admin export one visitor's data as a JSON download and
 * erase a visitor; the account-wide retention of messages. Exports and erasures are audited.
 */
export default async function gdprRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const gdpr = async (request: { actor: Actor }) => authorize(request.actor, 'visitors.gdpr');

  app.get('/visitor/:id/export', { schema: { response: { 200: z.looseObject({ exported_at: z.string(), visitor: z.looseObject({ id: z.string(), name: z.string(), email: z.string() }), conversations: z.array(z.looseObject({ id: z.number(), status: z.string(), messages: z.array(z.looseObject({ id: z.number(), sender_type: z.string() })) })), files: z.array(z.looseObject({})) }).meta({ description: 'A JSON download (Content-Disposition: attachment): the profile, every conversation with its messages (private notes included), and the files with their links' }) }, tags, summary: 'One visitor’s data as a JSON download (owner/Admin)', params: idParams, ...secured }, onRequest: [authenticate, gdpr] }, async (request, reply) => {
    const id = visitorId(request.params.id);
    const data = await exportVisitor(app, request.actor.accountId, id);
    if (!data) throw notFound(VISITOR_NOT_FOUND);
    await audit(request, 'visitor.exported', `visitor:${id}`, { conversations: data.conversations.length, files: data.files.length });
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="visitor-${id}.json"`)
      .header('cache-control', 'no-store')
      // Sent as the indented text of the download (a string is not serialized again).
      .send(JSON.stringify(data, null, 2) as never);
  });

  app.delete('/visitor/:id', { schema: { response: { 200: okSchema(z.object({ conversations: z.number(), messages: z.number(), files: z.number(), knowledge: z.number() })) }, tags, summary: 'Erase a visitor: rows, files and knowledge learned from them (owner/Admin)', params: idParams, ...secured }, onRequest: [authenticate, gdpr] }, async (request) => {
    const id = visitorId(request.params.id);
    const erased = await eraseVisitor(app, request.actor.accountId, id);
    if (!erased) throw notFound(VISITOR_NOT_FOUND);
    await audit(request, 'visitor.erased', `visitor:${id}`, erased);
    return { message: 'success', data: erased };
  });

  app.get('/retention', { schema: { response: { 200: okSchema(z.object({ retention_months: z.number().nullable() })) }, tags, summary: 'The account’s message retention in months (null: kept)', ...secured }, onRequest: [authenticate, gdpr] }, async (request) => {
    const [row] = await app.db.select({ months: accounts.retentionMonths }).from(accounts).where(eq(accounts.id, request.actor.accountId));
    return { message: 'success', data: { retention_months: row?.months ?? null } };
  });

  app.put('/retention', { schema: { response: { 200: okSchema(z.object({ retention_months: z.number().nullable() })) }, tags, summary: 'Delete messages (and files) older than N months through a daily job; null keeps them (owner/Admin)', body: retentionSchema, ...secured }, onRequest: [authenticate, gdpr] }, async (request) => {
    const months = request.body.retention_months;
    await app.db.update(accounts).set({ retentionMonths: months }).where(eq(accounts.id, request.actor.accountId));
    await scheduleRetention(app, request.actor.accountId);
    await audit(request, 'settings.updated', 'retention', { retention_months: months });
    return { message: 'success', data: { retention_months: months } };
  });
}
