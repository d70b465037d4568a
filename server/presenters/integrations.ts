import type { ApiKeyDto, ApiKeyScope, WebhookDeliveryDto, WebhookEndpointDto, WebhookEvent } from '@parley/shared';
import type { apiKeys, webhookDeliveries, webhookEndpoints } from '../db/schema.js';

type KeyRow = typeof apiKeys.$inferSelect;

/** The fields of an API key that leave the server: never its hash. */
export function presentApiKey(row: KeyRow, user: { id: number; name: string }): ApiKeyDto {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes as ApiKeyScope[],
    prefix: row.prefix,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    user,
  };
}

/** An endpoint without its signing secret (shown once, at creation). */
export function presentWebhookEndpoint(row: typeof webhookEndpoints.$inferSelect): WebhookEndpointDto {
  return {
    id: row.id,
    url: row.url,
    events: row.events as WebhookEvent[],
    status: row.status,
    failing_since: row.failingSince?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

export function presentWebhookDelivery(row: typeof webhookDeliveries.$inferSelect): WebhookDeliveryDto {
  return {
    id: row.id,
    event: row.event,
    status: row.status,
    attempts: row.attempts,
    response_code: row.responseCode,
    last_error: row.lastError,
    created_at: row.createdAt.toISOString(),
    last_attempt_at: row.lastAttemptAt?.toISOString() ?? null,
  };
}
