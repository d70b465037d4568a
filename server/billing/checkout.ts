/** Commands behind the payment routes: start a checkout, verify one. */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import type { JobQueue } from '../jobs/types.js';
import { payments, plans } from '../db/schema.js';
import { HttpError, validationError } from '../errors.js';
import { newPaymentReference } from './index.js';
import { type PaymentProvider, toSubunit } from './provider.js';
import { type PaymentRow, type Settlement, settlePayment, withSubscription } from './settle.js';
import { requireVerifiedOwner } from '../routes/auth/verifyEmail.js';

export const ENTERPRISE_MESSAGE = 'Enterprise plans are arranged with sales';
export const FREE_PLAN_MESSAGE = 'The Starter plan is free and needs no payment';
export const INVALID_PLAN_MESSAGE = 'The selected plan is invalid.';

export interface StartCheckoutInput {
  accountId: string;
  userId: number;
  /** The signed-in owner's email: never the one the client sent. */
  email: string;
  planId: number;
  currency: string;
  callbackUrl: string;
}

/** Records the payment (pending) and only then asks the provider for its checkout page. */
export async function startCheckout(
  db: Db,
  provider: PaymentProvider,
  input: StartCheckoutInput,
): Promise<{ reference: string; authorizationUrl: string }> {
  await requireVerifiedOwner(db, input.accountId); // issue 14: payments need a verified owner email
  const [plan] = await db.select().from(plans).where(eq(plans.id, input.planId));
  if (!plan) throw validationError({ plan_id: [INVALID_PLAN_MESSAGE] });
  if (plan.price === null) throw new HttpError(422, ENTERPRISE_MESSAGE);
  const price = Number(plan.price);
  if (!(price > 0)) throw new HttpError(422, FREE_PLAN_MESSAGE);

  const reference = newPaymentReference();
  const amount = toSubunit(price);
  await db.insert(payments).values({
    reference,
    accountId: input.accountId,
    userId: input.userId,
    planId: plan.id,
    amount,
    currency: input.currency,
    provider: provider.name,
  });
  try {
    const { authorizationUrl } = await provider.initialize({
      reference,
      amount,
      currency: input.currency,
      email: input.email,
      callbackUrl: input.callbackUrl,
      metadata: { account_id: input.accountId, plan_id: plan.id, plan: plan.name },
    });
    return { reference, authorizationUrl };
  } catch (e) {
    await db
      .update(payments)
      .set({ status: 'failed', statusText: 'The payment could not be initialised', updatedAt: new Date() })
      .where(eq(payments.reference, reference));
    throw e;
  }
}

/** The account's payment with this reference; another account's answers undefined like a missing one. */
export async function findPayment(db: Db, accountId: string, reference: string): Promise<PaymentRow | undefined> {
  const [row] = await db
    .select()
    .from(payments)
    .where(and(eq(payments.reference, reference), eq(payments.accountId, accountId)));
  return row;
}

/**
 * Asks the provider about a payment not yet successful and settles it. A settled success
 * answers from the database (same subscription, no provider call).
 */
export async function verifyPayment(
  db: Db,
  jobs: JobQueue,
  provider: PaymentProvider | undefined,
  payment: PaymentRow,
  now: Date,
): Promise<Settlement> {
  if (payment.status !== 'success' && provider) {
    const report = await provider.verify(payment.reference);
    if (report) {
      const settled = await settlePayment(db, { ...report, reference: payment.reference }, now, jobs);
      if (settled) return settled;
    }
  }
  const [fresh] = await db.select().from(payments).where(eq(payments.id, payment.id));
  return withSubscription(db, fresh ?? payment);
}
