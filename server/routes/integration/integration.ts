import { and, eq, gte, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { IntegrationMetricDto } from '@parley/shared';
import { accounts, widgetLoads } from '../../db/schema.js';
import { notFound } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { authorize } from '../../policies/index.js';
import { integrationMetricDtoSchema, okSchema, successSchema } from '../../presenters/dtoSchemas.js';
import { z } from 'zod';

const secured = { security: [{ bearer: [] }] };
const METRIC_DAYS = 7;
const DAY_MS = 86_400_000;

/** A Host header fit to be written into HTML; anything else (quotes, spaces...) is not trusted. */
const SAFE_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/** Where widget.js is served: PUBLIC_URL when configured, else the address this request came to. */
export function publicBase(request: FastifyRequest): string {
  const configured = request.server.config.publicUrl;
  if (configured) return configured;
  const host = SAFE_HOST.test(request.host) ? request.host : 'localhost';
  return `${request.protocol}://${host}`;
}

export const integrationScript = (base: string, widgetKey: string): string =>
  `<script src="${base}/widget.js" data-widget="${widgetKey}" async></script>`;

/** Midnight UTC of the first of the last 7 days (today included), so the chart has 7 whole days. */
export function metricsSince(now: Date): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today - (METRIC_DAYS - 1) * DAY_MS);
}

export default async function integrationRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/integration', { schema: { response: { 200: successSchema.extend({ script: z.string() }) }, tags: ['integration'], ...secured }, onRequest: authenticate }, async (request) => {
    authorize(request.actor, 'settings.read');
    const [account] = await app.db
      .select({ widgetKey: accounts.widgetKey })
      .from(accounts)
      .where(eq(accounts.id, request.actor.accountId));
    if (!account) throw notFound();
    return { message: 'success', script: integrationScript(publicBase(request), account.widgetKey) };
  });

  app.get('/integration-metrics', { schema: { response: { 200: okSchema(z.object({ data: z.array(integrationMetricDtoSchema) })) }, tags: ['integration'], ...secured }, onRequest: authenticate }, async (request) => {
    authorize(request.actor, 'settings.read');
    // Text, not a timestamp: a timestamp without time zone would be read in the node's local zone.
    const day = sql<string>`to_char(date_trunc('day', ${widgetLoads.createdAt} AT TIME ZONE 'UTC'), 'YYYY-MM-DD')`;
    const rows = await app.db
      .select({ day, status: widgetLoads.status, count: sql<number>`count(*)`.mapWith(Number) })
      .from(widgetLoads)
      .where(and(eq(widgetLoads.accountId, request.actor.accountId), gte(widgetLoads.createdAt, metricsSince(new Date()))))
      .groupBy(day, widgetLoads.status)
      .orderBy(day, widgetLoads.status);
    const data: IntegrationMetricDto[] = rows.map((r) => ({
      timestamp: `${r.day}T00:00:00.000Z`,
      usage_count: r.count,
      status: r.status,
    }));
    return { message: 'success', data: { data } };
  });
}
