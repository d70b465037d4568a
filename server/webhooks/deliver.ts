import { and, asc, eq, lte, sql } from 'drizzle-orm';
import { z } from 'zod';
import { WEBHOOK_HEADERS } from '@parley/shared';
import { users, webhookDeliveries, webhookEndpoints } from '../db/schema.js';
import { defineJob, JOB_TOPIC, type JobContext } from '../jobs/types.js';
import { writeOutbox } from '../outbox/outbox.js';
import { escapeHtml } from '../services/html.js';
import { OutboundError, outboundRequest } from '../services/outbound.js';
import { deliverJobKey, forgetWebhookEndpoints } from './enqueue.js';
import { signWebhook } from './sign.js';

const payload = z.object({ accountId: z.uuid(), endpointId: z.uuid(), orderingKey: z.string().min(1).max(200) });
type Payload = z.output<typeof payload>;

/** How long a claimed delivery is held before another run may try it (a node that died mid-call). */
const leaseMs = (ctx: JobContext) => ctx.settings.webhooks.timeoutMs + 5000;
/** A receiver's answer kept in the log, at most. */
const MAX_ERROR = 300;

/** Wakes this queue again at `at` (one wake per due time). */
async function wakeAt(ctx: JobContext, p: Payload, at: Date): Promise<void> {
  const delayMs = Math.max(0, at.getTime() - Date.now());
  await writeOutbox(ctx.db, [{ topic: JOB_TOPIC, name: 'webhooks.deliver', payload: p, dedupeKey: `${deliverJobKey(p.endpointId, p.orderingKey)}:${at.getTime()}`, delayMs }]);
}

/**
 * Sends one endpoint's pending deliveries of one ordering key, oldest first: a delivery is tried
 * only once every earlier one of its key is delivered or has failed for good, so one
 * conversation's events arrive in order. A failed attempt waits `retryBaseMs * 2^(n-1)`; after
 * `maxAttempts` the delivery is marked failed and the next one goes. An endpoint failing for
 * `pauseAfterMs` is paused and its owner emailed; its deliveries wait for it to be resumed.
 */
export async function deliverWebhooks(p: Payload, ctx: JobContext): Promise<void> {
  const s = ctx.settings.webhooks;
  for (;;) {
    const [endpoint] = await ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, p.endpointId));
    if (endpoint?.status !== 'active') return;
    const [head] = await ctx.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.endpointId, p.endpointId), eq(webhookDeliveries.orderingKey, p.orderingKey), eq(webhookDeliveries.status, 'pending')))
      .orderBy(asc(webhookDeliveries.seq))
      .limit(1);
    if (!head) return;
    // Claimed by the conditional update: of two runs, one wins; the other wakes when the lease ends.
    const [claimed] = await ctx.db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(Date.now() + leaseMs(ctx)) })
      .where(and(eq(webhookDeliveries.id, head.id), eq(webhookDeliveries.status, 'pending'), lte(webhookDeliveries.nextAttemptAt, sql`now()`)))
      .returning();
    if (!claimed) return wakeAt(ctx, p, head.nextAttemptAt);
    // Should this process die mid-call, a durable wake-up takes the queue back after the lease.
    await wakeAt(ctx, p, claimed.nextAttemptAt);

    const body = JSON.stringify(claimed.payload);
    const timestamp = Math.floor(Date.now() / 1000);
    const eventId = (claimed.payload as { id: string }).id;
    let code: number | null = null;
    let error: string | null = null;
    try {
      const res = await outboundRequest(endpoint.url, s.outbound, {
        method: 'POST',
        body,
        timeoutMs: s.timeoutMs,
        maxBytes: 4096,
        truncate: true,
        schemes: s.outbound.allowPrivate ? ['https:', 'http:'] : ['https:'],
        headers: {
          'content-type': 'application/json',
          [WEBHOOK_HEADERS.id]: eventId,
          [WEBHOOK_HEADERS.timestamp]: String(timestamp),
          [WEBHOOK_HEADERS.signature]: signWebhook(ctx.secrets.open(endpoint.secret), timestamp, body),
          [WEBHOOK_HEADERS.event]: claimed.event,
        },
      });
      code = res.status;
      if (code < 200 || code >= 300) error = `HTTP ${code}: ${res.body.toString('utf8').slice(0, MAX_ERROR)}`;
    } catch (e) {
      error = e instanceof OutboundError ? e.message : 'The request failed.';
    }
    const attempts = claimed.attempts + 1;
    const now = new Date();
    if (!error) {
      await ctx.db
        .update(webhookDeliveries)
        .set({ status: 'delivered', attempts, responseCode: code, lastError: null, lastAttemptAt: now })
        .where(eq(webhookDeliveries.id, claimed.id));
      await ctx.db.update(webhookEndpoints).set({ failingSince: null }).where(and(eq(webhookEndpoints.id, endpoint.id), sql`${webhookEndpoints.failingSince} is not null`));
      continue;
    }
    const gaveUp = attempts >= s.maxAttempts;
    const nextAt = new Date(now.getTime() + s.retryBaseMs * 2 ** (attempts - 1));
    await ctx.db
      .update(webhookDeliveries)
      .set({ status: gaveUp ? 'failed' : 'pending', attempts, responseCode: code, lastError: error, lastAttemptAt: now, nextAttemptAt: gaveUp ? now : nextAt })
      .where(eq(webhookDeliveries.id, claimed.id));
    const failingSince = endpoint.failingSince ?? now;
    if (!endpoint.failingSince) await ctx.db.update(webhookEndpoints).set({ failingSince: now }).where(eq(webhookEndpoints.id, endpoint.id));
    if (now.getTime() - failingSince.getTime() >= s.pauseAfterMs) return pauseEndpoint(ctx, endpoint.id, endpoint.accountId, endpoint.url, failingSince);
    if (gaveUp) continue;
    return wakeAt(ctx, p, nextAt);
  }
}

/** Pauses a failing endpoint (once) and tells the account's owner by email. */
async function pauseEndpoint(ctx: JobContext, endpointId: string, accountId: string, url: string, failingSince: Date): Promise<void> {
  const [paused] = await ctx.db
    .update(webhookEndpoints)
    .set({ status: 'paused', pausedAt: new Date(), updatedAt: new Date() })
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.status, 'active')))
    .returning({ id: webhookEndpoints.id });
  if (!paused) return;
  forgetWebhookEndpoints(ctx.db, accountId);
  const [owner] = await ctx.db
    .select({ email: users.email, name: users.name })
    .from(users)
    .where(and(eq(users.accountId, accountId), eq(users.type, 'owner')))
    .limit(1);
  if (!owner) return;
  const link = `${ctx.publicUrl}/api-access`;
  const text =
    `Hello ${owner.name},\n\nParley paused your webhook endpoint ${url}: every delivery to it has failed since ` +
    `${failingSince.toUTCString()}. Events for it are kept and will be sent in order once you resume it.\n\n` +
    `See the delivery log and resume it at ${link}\n`;
  await ctx.mailer.send({
    to: owner.email,
    subject: 'Your Parley webhook endpoint was paused',
    text,
    html: `<p>Hello ${escapeHtml(owner.name)},</p><p>Parley paused your webhook endpoint <b>${escapeHtml(url)}</b>: every delivery to it has failed since ${escapeHtml(failingSince.toUTCString())}. Events for it are kept and will be sent in order once you resume it.</p><p><a href="${escapeHtml(link)}">See the delivery log and resume it</a></p>`,
    messageId: `<webhook-paused-${endpointId}-${failingSince.getTime()}@parley>`,
  });
}

export const webhookJobs = [defineJob({ name: 'webhooks.deliver', schema: payload, handle: deliverWebhooks })] as const;
