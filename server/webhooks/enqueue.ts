import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { WebhookEvent } from '@parley/shared';
import type { Db } from '../db/client.js';
import { webhookDeliveries, webhookEndpoints } from '../db/schema.js';
import type { JobQueue } from '../jobs/types.js';

/** The JSON body every delivery carries: `id` is the idempotency key (the same on every retry and resend). */
export interface WebhookBody {
  id: string;
  type: WebhookEvent;
  created_at: string;
  account_id: string;
  data: Record<string, unknown>;
}

export const deliverJobKey = (endpointId: string, orderingKey: string) => `webhook:${endpointId}:${orderingKey}`;

/**
 * Records one event for every active endpoint of the account that subscribed to it, and wakes
 * their delivery queues. `orderingKey` (`conversation:<id>`, `visitor:<id>`) keeps one
 * conversation's deliveries in order per endpoint.
 */
export async function enqueueWebhookEvent(
  deps: { db: Db; jobs: JobQueue },
  accountId: string,
  type: WebhookEvent,
  orderingKey: string,
  data: Record<string, unknown>,
): Promise<number> {
  const endpoints = await deps.db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.accountId, accountId), eq(webhookEndpoints.status, 'active'), sql`${type} = any(${webhookEndpoints.events})`));
  if (endpoints.length === 0) return 0;
  const createdAt = new Date().toISOString();
  await deps.db.insert(webhookDeliveries).values(
    endpoints.map((e) => ({
      endpointId: e.id,
      accountId,
      event: type,
      orderingKey,
      payload: { id: randomUUID(), type, created_at: createdAt, account_id: accountId, data } satisfies WebhookBody,
    })),
  );
  for (const e of endpoints) await deps.jobs.enqueue('webhooks.deliver', { accountId, endpointId: e.id, orderingKey });
  return endpoints.length;
}
