/**
 * What the owner's subscription screen says (issue 12 item 6): the plan in force, the trial and
 * the paid periods (a payment made during the trial starts when the trial ends), when what is in
 * force ends, and a Starter downgrade or cancel scheduled for that moment.
 *
 * Billing is prepaid, one month per payment: nothing charges a card by itself. So a paid period
 * ends unless the owner pays again; a downgrade or a cancel records the owner's decision (the
 * screen says it, the reminders stop) and takes effect at the end of the period in force.
 */
import { and, eq, gt } from 'drizzle-orm';
import type { SubscriptionStatusDto } from '@parley/shared';
import type { Tx } from '../db/client.js';
import { planChanges, plans, subscriptions, type PlanChangeKind } from '../db/schema.js';
import { HttpError } from '../errors.js';
import { type PlanName, planInForce } from './limits.js';

export const NOTHING_TO_END = 'You are on the Starter plan: there is no paid plan or trial to end';
export const NO_CHANGE_SCHEDULED = 'No plan change is scheduled';
export const DOWNGRADE_ONLY_STARTER = 'Only the Starter plan can be chosen without a payment';

const NAME_BY_CODE: Record<string, PlanName> = { starter: 'Starter', professional: 'Professional', enterprise: 'Enterprise' };

export interface PaidPeriod {
  plan: PlanName;
  /** Start of the first paid period not yet over (may be in the future: after the trial). */
  from: Date;
  /** End of the chain of periods paid in advance, each starting where the one before ends. */
  until: Date;
}

export interface BillingStatus {
  plan: PlanName;
  trial: boolean;
  trialEndsAt: Date | null;
  paid: PaidPeriod | null;
  /** When what is in force now ends unless the owner pays: the paid chain's end, else the trial's. */
  periodEndsAt: Date | null;
  change: { kind: PlanChangeKind; plan: PlanName; effectiveAt: Date } | null;
}

/** The account's trial and paid periods as of `now` (rows already over are ignored). */
export async function billingStatus(db: Tx, accountId: string, now: Date): Promise<BillingStatus> {
  const inForce = await planInForce(db, accountId, now);
  const rows = await db
    .select({ code: plans.code, status: subscriptions.status, start: subscriptions.startDate, expiry: subscriptions.expiryDate })
    .from(subscriptions)
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .where(and(eq(subscriptions.accountId, accountId), eq(subscriptions.isActive, true), gt(subscriptions.expiryDate, now)));

  let trialEndsAt: Date | null = null;
  for (const r of rows) {
    if (r.status === 'trial' && r.start <= now && (!trialEndsAt || r.expiry > trialEndsAt)) trialEndsAt = r.expiry;
  }
  // The paid chain: the earliest paid period not over, then every period that continues it.
  const paidRows = rows.filter((r) => r.status === 'active' && NAME_BY_CODE[r.code]).sort((a, b) => a.start.getTime() - b.start.getTime());
  let paid: PaidPeriod | null = null;
  for (const r of paidRows) {
    if (!paid) paid = { plan: NAME_BY_CODE[r.code]!, from: r.start, until: r.expiry };
    else if (r.start <= paid.until && r.expiry > paid.until) paid.until = r.expiry;
  }

  const [change] = await db
    .select({ kind: planChanges.kind, effectiveAt: planChanges.effectiveAt, code: plans.code })
    .from(planChanges)
    .innerJoin(plans, eq(plans.id, planChanges.planId))
    .where(and(eq(planChanges.accountId, accountId), gt(planChanges.effectiveAt, now)));

  return {
    plan: inForce.plan,
    trial: inForce.trial,
    trialEndsAt,
    paid,
    periodEndsAt: paid?.until ?? trialEndsAt,
    change: change ? { kind: change.kind, plan: NAME_BY_CODE[change.code] ?? 'Starter', effectiveAt: change.effectiveAt } : null,
  };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentBillingStatus(s: BillingStatus): SubscriptionStatusDto {
  return {
    plan: s.plan,
    trial: s.trial,
    trial_ends_at: iso(s.trialEndsAt),
    paid_plan: s.paid?.plan ?? null,
    paid_from: iso(s.paid?.from ?? null),
    paid_until: iso(s.paid?.until ?? null),
    period_ends_at: iso(s.periodEndsAt),
    scheduled_change: s.change ? { kind: s.change.kind, plan: s.change.plan, effective_at: s.change.effectiveAt.toISOString() } : null,
  };
}

/**
 * Schedules Starter from the end of the period in force (a downgrade chosen in the plan list, or
 * a cancel). Replaces an earlier scheduled change; 409 when nothing is in force but Starter.
 */
export async function schedulePlanChange(
  db: Tx,
  input: { accountId: string; userId: number; kind: PlanChangeKind; planId?: number },
  now: Date,
): Promise<BillingStatus> {
  const [starter] = await db.select({ id: plans.id, code: plans.code, price: plans.price }).from(plans).where(eq(plans.code, 'starter'));
  if (!starter) throw new Error('the Starter plan is missing');
  if (input.planId !== undefined && input.planId !== starter.id) throw new HttpError(422, DOWNGRADE_ONLY_STARTER, { plan_id: [DOWNGRADE_ONLY_STARTER] });
  const status = await billingStatus(db, input.accountId, now);
  if (!status.periodEndsAt) throw new HttpError(409, NOTHING_TO_END);
  const values = { kind: input.kind, planId: starter.id, effectiveAt: status.periodEndsAt, requestedBy: input.userId, createdAt: now };
  await db
    .insert(planChanges)
    .values({ accountId: input.accountId, ...values })
    .onConflictDoUpdate({ target: planChanges.accountId, set: values });
  return billingStatus(db, input.accountId, now);
}

/** "Keep my plan": drops the scheduled change; 409 when none is scheduled. */
export async function dropPlanChange(db: Tx, accountId: string, now: Date): Promise<BillingStatus> {
  const dropped = await db
    .delete(planChanges)
    .where(and(eq(planChanges.accountId, accountId), gt(planChanges.effectiveAt, now)))
    .returning({ accountId: planChanges.accountId });
  if (dropped.length === 0) throw new HttpError(409, NO_CHANGE_SCHEDULED);
  return billingStatus(db, accountId, now);
}
