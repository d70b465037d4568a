import { z } from 'zod';

/**
 * Issue 14 "Integrations": API keys and outbound webhooks. The console's forms and the server
 * validate with these, so both reject the same input with the same words.
 */

/** What a key may do (it acts as its creator, narrowed to these). */
export const API_KEY_SCOPES = ['conversations:read', 'messages:send', 'visitors:manage', 'stats:read'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
export const API_KEY_SCOPE_LABELS: Record<ApiKeyScope, string> = {
  'conversations:read': 'Read conversations',
  'messages:send': 'Send messages',
  'visitors:manage': 'Manage visitors',
  'stats:read': 'Read stats',
};
/** Every API key starts with this, so a leaked one is easy to recognise (and secret scanners can). */
export const API_KEY_PREFIX = 'prly_';
export const MAX_API_KEY_NAME = 80;
export const MAX_API_KEYS = 50;

export const API_KEY_NAME_REQUIRED = 'Name is required';
export const API_KEY_SCOPES_REQUIRED = 'Choose at least one scope';
export const API_KEY_SCOPE_UNKNOWN = 'Unknown scope';
export const TOO_MANY_API_KEYS = `An account can keep at most ${MAX_API_KEYS} API keys`;
/** 403 when a key calls something outside its scopes (or a call no key may make). */
export const API_KEY_SCOPE_FORBIDDEN = 'This API key may not make this call';

export const apiKeySchema = z.object({
  name: z
    .string({ error: API_KEY_NAME_REQUIRED })
    .trim()
    .min(1, { error: API_KEY_NAME_REQUIRED })
    .max(MAX_API_KEY_NAME, { error: `Name must be at most ${MAX_API_KEY_NAME} characters` }),
  scopes: z
    .array(z.enum(API_KEY_SCOPES, { error: API_KEY_SCOPE_UNKNOWN }), { error: API_KEY_SCOPES_REQUIRED })
    .min(1, { error: API_KEY_SCOPES_REQUIRED })
    .transform((s) => [...new Set(s)]),
});
export type ApiKeyInput = z.input<typeof apiKeySchema>;

export interface ApiKeyDto {
  id: string;
  name: string;
  scopes: ApiKeyScope[];
  /** The key's first characters (e.g. "prly_Ab3d"), to tell keys apart. */
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  /** Who created it (the key acts as them). */
  user: { id: number; name: string };
}

/** Events an endpoint can subscribe to (the `type` of each delivery). */
export const WEBHOOK_EVENTS = [
  'conversation.created',
  'conversation.resolved',
  'conversation.assigned',
  'message.created',
  'visitor.identified',
  'rating.given',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const MAX_WEBHOOK_ENDPOINTS = 20;
export const MAX_WEBHOOK_URL = 2000;

export const WEBHOOK_URL_INVALID = 'Please enter a valid https:// URL';
export const WEBHOOK_EVENTS_REQUIRED = 'Choose at least one event';
export const WEBHOOK_EVENT_UNKNOWN = 'Unknown event';
export const TOO_MANY_WEBHOOKS = `An account can keep at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints`;

/** Signature headers of every delivery (documented in the console's API section). */
export const WEBHOOK_HEADERS = {
  id: 'Parley-Webhook-Id',
  timestamp: 'Parley-Webhook-Timestamp',
  signature: 'Parley-Webhook-Signature',
  event: 'Parley-Webhook-Event',
} as const;

export const webhookSchema = z.object({
  url: z.string({ error: WEBHOOK_URL_INVALID }).trim().min(1, { error: WEBHOOK_URL_INVALID }).max(MAX_WEBHOOK_URL, { error: WEBHOOK_URL_INVALID }),
  events: z
    .array(z.enum(WEBHOOK_EVENTS, { error: WEBHOOK_EVENT_UNKNOWN }), { error: WEBHOOK_EVENTS_REQUIRED })
    .min(1, { error: WEBHOOK_EVENTS_REQUIRED })
    .transform((s) => [...new Set(s)]),
});
export type WebhookInput = z.input<typeof webhookSchema>;

export interface WebhookEndpointDto {
  id: string;
  url: string;
  events: WebhookEvent[];
  status: 'active' | 'paused';
  failing_since: string | null;
  created_at: string;
}

export interface WebhookDeliveryDto {
  id: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  response_code: number | null;
  last_error: string | null;
  created_at: string;
  last_attempt_at: string | null;
}
