import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures: HMAC-SHA256 with the endpoint's secret over `<timestamp>.<body>`, sent as
 * `Parley-Webhook-Signature: v1=<hex>` beside `Parley-Webhook-Timestamp: <unix seconds>`. A
 * receiver recomputes it over the raw body and refuses old timestamps (replays).
 */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** The check a receiver makes (used by the tests and shown in the documentation). */
export function verifyWebhook(secret: string, timestamp: string, body: string, signature: string, toleranceSeconds = 300, now = Date.now()): boolean {
  const ts = Number(timestamp);
  if (!Number.isInteger(ts) || Math.abs(now / 1000 - ts) > toleranceSeconds) return false;
  const expected = Buffer.from(signWebhook(secret, ts, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** A new endpoint's signing secret, shown once. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64url')}`;
