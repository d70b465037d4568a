/**
 * Settlement: the one step that turns a provider's report into a subscription. Redirect
 * verification and the webhook both call it; it is idempotent and safe when both arrive at
 * once (the payment row is locked, and only a pending/failed row can become success).
 */
import { and, eq, gt, inArray, lte, max } from 'drizzle-orm';
import type { Db, Tx } from '../db/client.js';
import { accounts, payments, planChanges, plans, subscriptions } from '../db/schema.js';
import type { JobQueue } from '../jobs/types.js';
import { type ChargeReport, fromSubunit } from './provider.js';
import { scheduleRenewalReminders } from './reminders.js';

export type PaymentRow = typeof payments.$inferSelect;
export type SubscriptionRow = typeof subscriptions.$inferSelect;

export interface Settlement {
  payment: PaymentRow;
  /** The subscription this payment activated (now or earlier); undefined unless status is success. */
  subscription: SubscriptionRow | undefined;
}

/** One calendar month later in UTC; the 31st becomes the last day of a shorter month. */
export function addOneMonth(date: Date): Date {
  const day = date.getUTCDate();
  const next = new Date(date);
  next.setUTCDate(1);
  next.setUTCMonth(next.getUTCMonth() + 1);
  const lastDay = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  next.setUTCDate(Math.min(day, lastDay));
  return next;
}

const money = (amount: number, currency: string) => `${fromSubunit(amount).toFixed(2)} ${currency}`;

/** Why a successful charge is refused, or undefined when it matches what was asked. */
function mismatch(payment: PaymentRow, report: ChargeReport): string | undefined {
  if (report.currency !== payment.currency) {
    return `Currency paid (${report.currency || 'none'}) does not match the plan currency (${payment.currency})`;
  }
  if (report.amount !== payment.amount) {
    return `Amount paid (${money(report.amount, report.currency)}) does not match the plan price (${money(payment.amount, payment.currency)})`;
  }
  return undefined;
}

/** Rows whose period is over stop showing as active (status 'expired'); planInForce reads dates anyway. */
export async function expireSubscriptions(db: Tx, accountId: string, now: Date): Promise<void> {
  await db
    .update(subscriptions)
    .set({ isActive: false, status: 'expired' })
    .where(and(eq(subscriptions.accountId, accountId), eq(subscriptions.isActive, true), lte(subscriptions.expiryDate, now)));
}

async function activate(tx: Tx, payment: PaymentRow, now: Date): Promise<SubscriptionRow> {
  // Settlements of one account run one at a time, so two renewals never start at the same expiry.
  await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, payment.accountId)).for('update');
  await expireSubscriptions(tx, payment.accountId, now);
  const [plan] = await tx.select().from(plans).where(eq(plans.id, payment.planId));
  if (!plan) throw new Error(`payment ${payment.reference} names a missing plan`);
  // A renewal starts where the paid period in force ends, and a first paid period where the trial
  // ends (its remaining days are kept); otherwise now.
  const [current] = await tx
    .select({ until: max(subscriptions.expiryDate) })
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.accountId, payment.accountId),
        eq(subscriptions.isActive, true),
        inArray(subscriptions.status, ['active', 'trial']),
        gt(subscriptions.expiryDate, now),
      ),
    );
  const until = current?.until ? new Date(current.until) : undefined;
  const startDate = until && until > now ? until : now;
  // Paying again is the owner's answer to a downgrade or cancel scheduled earlier.
  await tx.delete(planChanges).where(eq(planChanges.accountId, payment.accountId));
  const [created] = await tx
    .insert(subscriptions)
    .values({
      accountId: payment.accountId,
      planId: plan.id,
      planName: plan.name,
      amount: fromSubunit(payment.amount),
      status: 'active',
      isActive: true,
      paymentReference: payment.reference,
      startDate,
      expiryDate: addOneMonth(startDate),
    })
    // The unique payment_reference is the last guard against a second activation.
    .onConflictDoNothing({ target: subscriptions.paymentReference })
    .returning();
  if (created) return created;
  const [existing] = await tx.select().from(subscriptions).where(eq(subscriptions.paymentReference, payment.reference));
  if (!existing) throw new Error('subscription conflict without a stored subscription');
  return existing;
}

/** A payment as stored, with the subscription it activated when it succeeded. */
export async function withSubscription(db: Tx, payment: PaymentRow): Promise<Settlement> {
  if (payment.status !== 'success') return { payment, subscription: undefined };
  const [subscription] = await db.select().from(subscriptions).where(eq(subscriptions.paymentReference, payment.reference));
  return { payment, subscription };
}

/**
 * Applies a provider report to the payment with its reference. Answers undefined when no such
 * payment exists. A success is final; failed/abandoned are recorded and may still turn into
 * success (Paystack lets the customer retry the same transaction).
 */
export async function settlePayment(db: Db, report: ChargeReport, now: Date, jobs: JobQueue): Promise<Settlement | undefined> {
  const settled = await db.transaction(async (tx) => {
    const [payment] = await tx.select().from(payments).where(eq(payments.reference, report.reference)).for('update');
    if (!payment) return undefined;

    if (payment.status === 'success') return withSubscription(tx, payment);
    if (report.status === 'pending') return { payment, subscription: undefined };

    const record = async (status: PaymentRow['status'], statusText: string, subscriptionId: number | null = null) => {
      const [updated] = await tx
        .update(payments)
        .set({ status, statusText: statusText.slice(0, 500), subscriptionId, updatedAt: now })
        .where(eq(payments.id, payment.id))
        .returning();
      return updated ?? payment;
    };

    if (report.status !== 'success') {
      const status = report.status === 'abandoned' ? 'abandoned' : 'failed';
      const text = report.gatewayResponse || (status === 'abandoned' ? 'The payment was not completed' : 'The payment failed');
      return { payment: await record(status, report.status === 'reversed' ? `Reversed: ${text}` : text), subscription: undefined };
    }

    const refused = mismatch(payment, report);
    if (refused) return { payment: await record('failed', refused), subscription: undefined };

    const subscription = await activate(tx, payment, now);
    // The reminders before the paid months end exist exactly when the payment is settled.
    await scheduleRenewalReminders({ db: tx, jobs }, payment.accountId, now, true);
    return { payment: await record('success', report.gatewayResponse || 'Successful', subscription.id), subscription };
  });
  jobs.wake();
  return settled;
}
