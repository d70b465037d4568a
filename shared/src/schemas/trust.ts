import { z } from 'zod';
import { emailField, passwordField } from './fields.js';

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
  'auth.email_change_requested',
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
  // Issue 14, integrations (helper f): keys and webhooks.
  'api_key.created',
  'api_key.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  // Issue 17: the assistant's knowledge sources.
  'ai_source.added',
  'ai_source.removed',
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

/** Forgot password: the same answer whether the email exists or not. */
export const forgotPasswordSchema = z.object({
  email: emailField('Email is required', 'Please enter a valid email address'),
});
export const FORGOT_PASSWORD_NOTICE = 'If an account uses this email, we sent it a link to choose a new password. The link works for 30 minutes.';
export const RESET_LINK_INVALID = 'This reset link is invalid or has expired. Please ask for a new one.';
/** Minutes a password reset link works. */
export const RESET_LINK_MINUTES = 30;

/** Choosing a new password from a reset link: SPEC's registration rules for the password. */
export const resetPasswordSchema = z.intersection(
  z.object({
    token: z.string({ error: RESET_LINK_INVALID }).min(1, { error: RESET_LINK_INVALID }).max(100, { error: RESET_LINK_INVALID }),
    password: passwordField('Password is required', 8, 'Password must be at least 8 characters'),
    password_confirmation: z.string({ error: 'Please confirm your password' }).min(1, { error: 'Please confirm your password' }),
  }),
  z.object({ password: z.unknown(), password_confirmation: z.unknown() }).refine((v) => typeof v.password !== 'string' || typeof v.password_confirmation !== 'string' || !v.password || !v.password_confirmation || v.password === v.password_confirmation, {
    path: ['password_confirmation'],
    error: 'Passwords do not match',
  }),
);
export type ResetPasswordInput = z.input<typeof resetPasswordSchema>;

export const EMAIL_NOT_VERIFIED = 'Please verify your email address first: open the link we sent you, or send a new one from Settings > Security.';

/** Two-factor sign-in (TOTP, RFC 6238: 6 digits every 30 s) and its ten single-use recovery codes. */
export const RECOVERY_CODE_COUNT = 10;
export const TWO_FACTOR_CODE_INVALID = 'The code is not valid';
export const TWO_FACTOR_CHALLENGE_EXPIRED = 'This sign-in has expired. Please sign in again.';
export const TWO_FACTOR_ALREADY_ON = 'Two-factor sign-in is already on';
export const TWO_FACTOR_NOT_SET_UP = 'Start the set-up first';
export const TWO_FACTOR_REQUIRED_BY_TEAM = 'Your team requires two-factor sign-in: it cannot be turned off';
export const TWO_FACTOR_OWNER_FIRST = 'Turn on two-factor sign-in for yourself first';

/** An authenticator code (6 digits, spaces allowed) or a recovery code (xxxxxx-xxxxxx). */
export const twoFactorCode = z
  .string({ error: 'Code is required' })
  .transform((v) => v.replace(/\s+/g, '').toLowerCase())
  .pipe(z.string().min(1, { error: 'Code is required', abort: true }).max(32, { error: TWO_FACTOR_CODE_INVALID }));

export const twoFactorLoginSchema = z.object({
  challenge: z.string({ error: TWO_FACTOR_CHALLENGE_EXPIRED }).min(1, { error: TWO_FACTOR_CHALLENGE_EXPIRED }).max(100, { error: TWO_FACTOR_CHALLENGE_EXPIRED }),
  code: twoFactorCode,
});
export type TwoFactorLoginInput = z.input<typeof twoFactorLoginSchema>;

export const twoFactorEnableSchema = z.object({ code: twoFactorCode });
/** Turning two-factor off or making new recovery codes asks for the password again. */
export const passwordConfirmSchema = z.object({
  password: z.string({ error: 'Password is required' }).min(1, { error: 'Password is required' }).max(1024),
});
export const securitySettingsSchema = z.object({
  require_two_factor: z.boolean({ error: 'require_two_factor must be true or false' }),
});

/** POST /api/vms/login for a user with two-factor sign-in (PRODUCT.md section 11). */
export interface TwoFactorChallengeDto {
  message: 'success';
  two_factor_required: true;
  /** The second step: POST /api/vms/login/2fa { challenge, code } within 5 minutes. */
  challenge: string;
  /** The team requires two-factor sign-in and this user has none yet: set it up with the challenge. */
  setup_required?: true;
}

export interface TwoFactorSetupDto {
  secret: string;
  otpauth_url: string;
  /** The otpauth URL as a QR code image (data: URL, PNG). */
  qr: string;
}

export interface SecurityStatusDto {
  email: string;
  email_verified: boolean;
  two_factor_enabled: boolean;
  recovery_codes_left: number;
  /** The account requires two-factor sign-in for the whole team. */
  require_two_factor: boolean;
}

/** Messages (and their files) older than this many months are deleted; null keeps them. */
export const MAX_RETENTION_MONTHS = 120;
export const RETENTION_INVALID = `Retention must be a whole number of months from 1 to ${MAX_RETENTION_MONTHS}, or empty to keep messages`;
export const retentionSchema = z.object({
  retention_months: z.number({ error: RETENTION_INVALID }).int({ error: RETENTION_INVALID }).min(1, { error: RETENTION_INVALID }).max(MAX_RETENTION_MONTHS, { error: RETENTION_INVALID }).nullable(),
});
