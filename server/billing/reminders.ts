
import { z } from 'zod';
import { STARTER_MONTHLY_CHATS } from '@parley/shared';
import type { Tx } from '../db/client.js';
import { defineJob, type JobContext, type JobQueue } from '../jobs/types.js';
import { sendOwnerOnce } from '../notifications/sendOnce.js';
import { escapeHtml } from '../services/html.js';
import { billingStatus } from './periods.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Days before the end of a paid period at which the owner is reminded. */
export const REMINDER_DAYS = [7, 1] as const;

const payloadSchema = z.object({
  accountId: z.uuid(),
  /** The end of the paid months this reminder is about (ISO). */
  periodEnd: z.iso.datetime(),
  daysBefore: z.union([z.literal(7), z.literal(1)]),
});
export type RenewalReminderPayload = z.output<typeof payloadSchema>;

const dedupeKeyOf = (p: RenewalReminderPayload) => `billing:reminder:${p.accountId}:${p.periodEnd}:${p.daysBefore}`;

/**
 * Enqueues the reminders of the account's paid months as they stand now (after a settlement:
 * `inTransaction` records them in the settlement's transaction, deps.db). Safe to call again: the same period end gives the same dedupe keys, and the email is sent
 * once per key whatever happens to the jobs.
 */
export async function scheduleRenewalReminders(deps: { db: Tx; jobs: JobQueue }, accountId: string, now: Date, inTransaction = false): Promise<void> {
  const { paid } = await billingStatus(deps.db, accountId, now);
  if (!paid) return;
  for (const daysBefore of REMINDER_DAYS) {
    const at = paid.until.getTime() - daysBefore * DAY_MS;
    if (at <= now.getTime()) continue; // that moment has passed: a later reminder still comes
    const payload = { accountId, periodEnd: paid.until.toISOString(), daysBefore };
    const opts = { delayMs: at - now.getTime(), dedupeKey: dedupeKeyOf(payload) };
    await deps.jobs.enqueue('billing.renewalReminder', payload, opts, inTransaction ? deps.db : undefined);
  }
}

export function reminderSubject(plan: string, daysBefore: number): string {
  return daysBefore === 1 ? `Your ${plan} plan ends tomorrow` : `Your ${plan} plan ends in ${daysBefore} days`;
}

const longDate = (d: Date) => d.toLocaleDateString('en-US', { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });

/** The job: one email to the owner, unless the period was extended, is over, or a change is scheduled. */
export async function sendRenewalReminder(p: RenewalReminderPayload, ctx: JobContext, now = new Date()): Promise<void> {
  const { db, log } = ctx;
  const periodEnd = new Date(p.periodEnd);
  // The runner starts it at its moment (enqueued with that delay); past the end it has no point.
  if (now >= periodEnd) return;
  const status = await billingStatus(db, p.accountId, now);
  if (!status.paid || status.paid.until.getTime() !== periodEnd.getTime()) return; // paid again since, or gone
  if (status.change) return; // the owner already chose Starter from that day: nothing to remind


  const plan = status.paid.plan;
  const link = `${ctx.publicUrl}/subscription`;
  const when = longDate(periodEnd);
  const lines = [
    `Your ${plan} plan is paid until ${when} (UTC). Payments are made one month at a time, so it does not renew by itself.`,
    `To keep ${plan}, pay for another month before then: the new month starts when this one ends, so no day is lost.`,
    `Otherwise the Starter plan applies from ${when}: up to ${STARTER_MONTHLY_CHATS} new chats a month and no AI assistant. Your conversations, visitors and settings stay.`,
  ];
  const key = `planReminder:${p.accountId}:${p.periodEnd}:${p.daysBefore}`;
  const sent = await sendOwnerOnce(ctx, { accountId: p.accountId, key, kind: 'planReminder' }, (owner) => ({
    to: owner.email,
    subject: reminderSubject(plan, p.daysBefore),
    text: [`Hello ${owner.name},`, '', ...lines, '', `Manage your subscription: ${link}`, ''].join('\n'),
    html: [
      '<!doctype html><html><body style="font-family:sans-serif">',
      `<p>Hello ${escapeHtml(owner.name)},</p>`,
      ...lines.map((l) => `<p>${escapeHtml(l)}</p>`),
      `<p><a href="${escapeHtml(link)}">Manage your subscription</a></p>`,
      '</body></html>',
    ].join('\n'),
  }));
  if (sent) log.info({ accountId: p.accountId, daysBefore: p.daysBefore }, 'renewal reminder sent');
}

/** Registered in jobs/registry.ts. */
export const billingJobs = [defineJob({ name: 'billing.renewalReminder', schema: payloadSchema, handle: (p, ctx) => sendRenewalReminder(p, ctx) })] as const;
