import { sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { Tx } from '../db/client.js';
import { auditLog, users } from '../db/schema.js';

/**
 * The audit log (issue 14): who did what, when, from where. One line per place that changes
 * trust-relevant state, e.g. `await audit(request, 'member.deleted', 'user:12', { email })`.
 * Actions are `<area>.<verb>` words; the console lists the ones in AUDIT_ACTIONS (shared/) as
 * filters. Entries belong to one account and are read by its owner only (PRODUCT.md section 2).
 */
export interface AuditEntry {
  accountId: string;
  /** The user who acted; null for the system (retention job) or an unknown caller. */
  actorUserId: number | null;
  action: string;
  /** What was acted on, as `<kind>:<id>` (user:12, visitor:abc, api_key:3) or '' for the account. */
  target?: string;
  ip?: string;
  userAgent?: string;
  /** Small facts worth keeping (changed fields, counts); never secrets or message text. */
  detail?: Record<string, unknown>;
}

const MAX_UA = 512;

export async function recordAudit(db: Tx, e: AuditEntry): Promise<void> {
  await db.insert(auditLog).values({
    accountId: e.accountId,
    actorUserId: e.actorUserId,
    // The actor's email as it is now, so the entry still says who after the member is deleted.
    actorEmail: e.actorUserId === null ? '' : sql`coalesce((select ${users.email} from ${users} where ${users.id} = ${e.actorUserId}), '')`,
    action: e.action,
    target: e.target ?? '',
    ip: e.ip ?? '',
    userAgent: (e.userAgent ?? '').slice(0, MAX_UA),
    detail: e.detail ?? {},
  });
}

/** Where a request came from: its IP (TRUST_PROXY decides whether X-Forwarded-For counts) and user agent. */
export function requestOrigin(request: FastifyRequest): { ip: string; userAgent: string } {
  const ua = request.headers['user-agent'];
  return { ip: request.ip, userAgent: (typeof ua === 'string' ? ua : '').slice(0, MAX_UA) };
}

/** One line for a signed-in console call: the actor, their account and the request's origin. */
export function audit(request: FastifyRequest, action: string, target = '', detail?: Record<string, unknown>, db: Tx = request.server.db): Promise<void> {
  return recordAudit(db, { accountId: request.actor.accountId, actorUserId: request.actor.id, action, target, ...requestOrigin(request), ...(detail ? { detail } : {}) });
}
