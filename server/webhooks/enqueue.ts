import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { WebhookEvent } from '@parley/shared';
import type { Db } from '../db/client.js';
import { webhookDeliveries, webhookEndpoints } from '../db/schema.js';
import type { JobQueue } from '../jobs/types.js';
import { type TtlCache, ttlCache } from '../services/ttlCache.js';

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
 * The account's active endpoints and their events, per node: read on every chat message, so kept
 * this long (most accounts have none). This node's own endpoint writes forget it at once; another
 * node's take up to this long to be seen (an endpoint created or resumed there misses at most
 * this much of the events stored here).
 */
const ENDPOINTS_CACHE_MS = 2000;
const activeEndpoints = new WeakMap<Db, TtlCache<string, { id: string; events: string[] }[]>>();

function endpointsOf(db: Db, accountId: string): Promise<{ id: string; events: string[] }[]> {
  let cache = activeEndpoints.get(db);
  if (!cache) activeEndpoints.set(db, (cache = ttlCache(ENDPOINTS_CACHE_MS)));
  // An async function: drizzle's query is a thenable that runs again at every await; the cache keeps its one result.
  return cache.get(accountId, async () =>
    db
      .select({ id: webhookEndpoints.id, events: webhookEndpoints.events })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.accountId, accountId), eq(webhookEndpoints.status, 'active'))),
  );
}

/** An endpoint of the account was created, changed, paused, resumed or deleted on this node. */
export function forgetWebhookEndpoints(db: Db, accountId: string): void {
  activeEndpoints.get(db)?.forget(accountId);
}

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
  const endpoints = (await endpointsOf(deps.db, accountId)).filter((e) => e.events.includes(type));
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
