import { z } from 'zod';

/**
 * Issue 14, account trust: the audit log, password reset, two-factor sign-in, active sessions,
 * visitor export/erase and retention. The console's forms and the server use these.
 */

/** Audit actions the console offers as filters (others, e.g. api_key.* and webhook.*, are listed too). */
export const AUDIT_ACTIONS = [
  'auth.signed_in',
  'auth.sign_in_failed',
  'auth.signed_out',
  'auth.password_changed',
  'auth.password_reset',
  'auth.email_verified',
  'auth.two_factor_enabled',
  'auth.two_factor_disabled',
  'auth.recovery_codes_regenerated',
  'session.revoked',
  'member.added',
  'member.updated',
  'member.deleted',
  'member.assigned',
  'member.signed_out',
  'settings.updated',
  'account.deleted',
  'visitor.exported',
  'visitor.erased',
  'retention.deleted',
] as const;

export const AUDIT_ACTION_INVALID = 'action is not valid';

/** GET /api/vms/audit-log filters (with limit + cursor). */
export const auditQuerySchema = z.object({
  action: z.string({ error: AUDIT_ACTION_INVALID }).regex(/^[a-z_]+(\.[a-z_]+)?$/, { error: AUDIT_ACTION_INVALID }).max(64, { error: AUDIT_ACTION_INVALID }).optional(),
  actor_user_id: z.coerce.number({ error: 'actor_user_id is not valid' }).int({ error: 'actor_user_id is not valid' }).positive({ error: 'actor_user_id is not valid' }).optional(),
  from: z.iso.datetime({ offset: true, error: 'from must be an ISO date-time' }).optional(),
  to: z.iso.datetime({ offset: true, error: 'to must be an ISO date-time' }).optional(),
});

export interface AuditEntryDto {
  id: number;
  action: string;
  target: string;
  actor: { id: number | null; email: string; name: string | null };
  ip: string;
  user_agent: string;
  /** Browser/OS/device read from the user agent. */
  device: string;
  detail: Record<string, unknown>;
  created_at: string;
}
