/**
 * The plan in force for an account and the limits it implies (PRODUCT.md section 7): a paid
 * subscription in its period, else the trial in its period, else Starter. Every function takes
 * `now` so tests can move the clock.
 */
import { and, count, eq, gt, gte, lt, sql } from 'drizzle-orm';
import { AI_NEEDS_PROFESSIONAL, CHAT_LIMIT_REACHED, STARTER_MONTHLY_CHATS, type PlanInForceDto } from '@parley/shared';
import { type Db, type Tx, rowsOf } from '../db/client.js';
import { chatClaims, conversations, messages, plans, subscriptions } from '../db/schema.js';
import { HttpError } from '../errors.js';
import type { DomainEvents } from '../services/domainEvents.js';

export type PlanName = 'Starter' | 'Professional' | 'Enterprise';

export interface PlanInForce {
  plan: PlanName;
  trial: boolean;
  /** End of the paid period (renewals included) or of the trial; null on Starter. */
  expiresAt: Date | null;
}

export const CHAT_LIMIT_MESSAGE = CHAT_LIMIT_REACHED;

const RANK: Record<PlanName, number> = { Starter: 0, Professional: 1, Enterprise: 2 };
const NAME_BY_CODE: Record<string, PlanName> = { starter: 'Starter', professional: 'Professional', enterprise: 'Enterprise' };

export async function planInForce(db: Tx, accountId: string, now: Date): Promise<PlanInForce> {
  const rows = await db
    .select({ code: plans.code, status: subscriptions.status, start: subscriptions.startDate, expiry: subscriptions.expiryDate })
    .from(subscriptions)
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .where(and(eq(subscriptions.accountId, accountId), eq(subscriptions.isActive, true), gt(subscriptions.expiryDate, now)));

  let best: PlanInForce = { plan: 'Starter', trial: false, expiresAt: null };
  for (const row of rows) {
    const plan = NAME_BY_CODE[row.code];
    if (!plan || row.start > now) continue;
    const trial = row.status === 'trial';
    if (!trial && row.status !== 'active') continue;
    // A paid plan beats the trial; a higher plan beats a lower one.
    const better = RANK[plan] > RANK[best.plan] || (RANK[plan] === RANK[best.plan] && best.trial && !trial);
    if (better) best = { plan, trial, expiresAt: row.expiry };
  }
  if (best.plan !== 'Starter' && !best.trial) {
    // Renewals paid in advance start where this period ends: report the end of the chain.
    for (const row of rows) {
      if (row.status === 'active' && NAME_BY_CODE[row.code] === best.plan && best.expiresAt && row.start <= best.expiresAt && row.expiry > best.expiresAt) {
        best = { ...best, expiresAt: row.expiry };
      }
    }
  }
  return best;
}

/** The monthly new-chat limit of a plan; null when unlimited. */
export const chatLimitOf = (plan: PlanName): number | null => (plan === 'Starter' ? STARTER_MONTHLY_CHATS : null);

/** The plan in force as GET /api/vms/user shows it, with this month's chats against its limit. */
export async function planSummary(db: Tx, accountId: string, now: Date): Promise<PlanInForceDto> {
  const p = await planInForce(db, accountId, now);
  const chats = await chatsThisMonth(db, accountId, now);
  const limit = chatLimitOf(p.plan);
  return {
    plan: p.plan,
    trial: p.trial,
    expires_at: p.expiresAt ? p.expiresAt.toISOString() : null,
    chats_this_month: chats,
    chat_limit: limit,
    limit_reached: limit !== null && chats >= limit,
  };
}

/** The AI assistant and removing the widget branding need Professional (or its trial) or above. */
export async function hasProfessional(db: Tx, accountId: string, now: Date): Promise<boolean> {
  return (await planInForce(db, accountId, now)).plan !== 'Starter';
}

/** Asking the assistant, and adding or refreshing its sources, need its plan: 403 otherwise. */
export async function assertAssistantPlan(db: Tx, accountId: string): Promise<void> {
  if (!(await hasProfessional(db, accountId, new Date()))) throw new HttpError(403, AI_NEEDS_PROFESSIONAL);
}

/** The calendar month (UTC) holding `now`: [start, end). */
export function monthOf(now: Date): { start: Date; end: Date } {
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
}

/** 'YYYY-MM' of the calendar month (UTC) holding `now`: the chat limit notice is sent once per month. */
export const monthKey = (now: Date): string => now.toISOString().slice(0, 7);

/**
 * New chats this calendar month: conversations that became chats this month (opened live, or
 * an offline-form conversation whose visitor then wrote live); offline-form ones do not count.
 */
export async function chatsThisMonth(db: Tx, accountId: string, now: Date): Promise<number> {
  const { start, end } = monthOf(now);
  const [row] = await db
    .select({ n: count() })
    .from(conversations)
    .where(
      and(
        eq(conversations.accountId, accountId),
        gte(conversations.countedAt, start),
        lt(conversations.countedAt, end),
      ),
    );
  return Number(row?.n ?? 0);
}

/** Whether the plan in force lets the account open one more chat this month. */
export async function canStartChat(db: Tx, accountId: string, now: Date): Promise<boolean> {
  const limit = chatLimitOf((await planInForce(db, accountId, now)).plan);
  return limit === null || (await chatsThisMonth(db, accountId, now)) < limit;
}

/**
 * Call before opening a new conversation (not for messages in an existing one). On Starter,
 * the 101st new chat of a calendar month is refused with 403; the widget then offers the
 * offline form.
 */
export async function assertCanStartChat(db: Tx, accountId: string, now: Date): Promise<void> {
  if (!(await canStartChat(db, accountId, now))) throw new HttpError(403, CHAT_LIMIT_MESSAGE);
}

/** A claim counts this long at most: a send that has not opened its conversation by then failed. */
const CLAIM_TTL_MS = 2 * 60_000;

/**
 * Before a visitor's message: a new chat counts against the plan's monthly limit; a chat that
 * already exists always goes on. A conversation opened by the offline form is not a chat yet:
 * the visitor's first live message counts (unless an agent already answered it, the owner's
 * choice). A refusal tells the owner (once a month, 'chat.limitReached'). Shared by the
 * widget's REST call and its socket.
 *
 * The check and the chat it lets through are one atomic step per account, across nodes: the
 * count runs under a transaction-scoped advisory lock on the account, and a visitor let
 * through leaves a claim (or its offline conversation is counted) before the lock is released,
 * so the next check already counts it although sendMessage opens the conversation afterwards.
 *
 * Returns whether the visitor had a conversation: sendMessage opens a missing one directly
 * (`newConversation`), without first trying to append to it.
 */
export async function assertVisitorCanChat(
  deps: { db: Db; events: DomainEvents },
  visitor: { id: string; accountId: string },
  now: Date,
): Promise<{ hasConversation: boolean }> {
  const { db } = deps;
  const [open] = await db
    .select({ id: conversations.id, countedAt: conversations.countedAt })
    .from(conversations)
    .where(eq(conversations.visitorId, visitor.id))
    .limit(1);
  const seen = { hasConversation: Boolean(open) };
  if (open?.countedAt) return seen;
  if (open) {
    const [answered] = await db
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.conversationId, open.id), eq(messages.senderType, 'user')))
      .limit(1);
    if (answered) return seen;
  }
  // The offline-form conversation becomes a chat of this month's count.
  const countOffline = (tx: Tx) => (open ? tx.update(conversations).set({ countedAt: now }).where(eq(conversations.id, open.id)) : undefined);
  const limit = chatLimitOf((await planInForce(db, visitor.accountId, now)).plan);
  if (limit === null) {
    await countOffline(db);
    return seen;
  }
  const allowed = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`parley:chat-limit:${visitor.accountId}`}, 0))`);
    if ((await chatsThisMonthWithClaims(tx, visitor.accountId, now)) >= limit) return false;
    if (open) await countOffline(tx);
    else {
      // A first message: its claim counts until its conversation does.
      await tx
        .insert(chatClaims)
        .values({ visitorId: visitor.id, accountId: visitor.accountId, createdAt: now })
        .onConflictDoUpdate({ target: chatClaims.visitorId, set: { createdAt: now } });
    }
    return true;
  });
  if (!allowed) {
    await deps.events.emit('chat.limitReached', { accountId: visitor.accountId, month: monthKey(now) });
    throw new HttpError(403, CHAT_LIMIT_MESSAGE);
  }
  return seen;
}

/**
 * Before an agent's message (console "Start Chat", issue 16): a message to a visitor without a
 * conversation starts a chat, so it counts against the plan's monthly limit exactly like a
 * visitor's first message (same lock and claim). A conversation that exists, even one opened by
 * the offline form, takes the reply (answering it is the owner's choice, never counted).
 */
export async function assertAgentCanStartChat(
  deps: { db: Db; events: DomainEvents },
  visitor: { id: string; accountId: string },
  now: Date,
): Promise<{ hasConversation: boolean }> {
  const [open] = await deps.db.select({ id: conversations.id }).from(conversations).where(eq(conversations.visitorId, visitor.id)).limit(1);
  return open ? { hasConversation: true } : assertVisitorCanChat(deps, visitor, now);
}

/** This month's chats plus the claims of first messages whose conversation may not exist yet (one visitor counts once). */
async function chatsThisMonthWithClaims(tx: Tx, accountId: string, now: Date): Promise<number> {
  const { start, end } = monthOf(now);
  const fresh = new Date(Math.max(start.getTime(), now.getTime() - CLAIM_TTL_MS));
  await tx.delete(chatClaims).where(and(eq(chatClaims.accountId, accountId), lt(chatClaims.createdAt, fresh)));
  const result = await tx.execute<{ n: number }>(sql`
    select count(*)::int as n from (
      select ${conversations.visitorId} as v from ${conversations}
      where ${conversations.accountId} = ${accountId} and ${conversations.countedAt} >= ${start.toISOString()}::timestamptz
        and ${conversations.countedAt} < ${end.toISOString()}::timestamptz
      union
      select ${chatClaims.visitorId} from ${chatClaims}
      where ${chatClaims.accountId} = ${accountId} and ${chatClaims.createdAt} < ${end.toISOString()}::timestamptz
    ) counted`);
  return Number(rowsOf<{ n: number }>(result)[0]?.n ?? 0);
}
