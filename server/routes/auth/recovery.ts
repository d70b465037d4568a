import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { FORGOT_PASSWORD_NOTICE, RESET_LINK_INVALID, RESET_LINK_MINUTES, forgotPasswordSchema, resetPasswordSchema } from '@parley/shared';
import { publicUrlOf } from '../../config.js';
import { authTokens, users } from '../../db/schema.js';
import { validationError } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { recordAudit, requestOrigin } from '../../services/audit.js';
import { ipKey } from '../../services/rateLimit.js';
import { hashPassword } from '../../services/secrets.js';
import { consumeUserLink, createUserLink } from './userLinks.js';
import { VERIFY_LINK_HOURS } from './verifyEmail.js';
import { successSchema } from '../../presenters/dtoSchemas.js';
import { z } from 'zod';

const secured = { security: [{ bearer: [] }] };
const tags = ['auth'];

/** Queues the verification email of a user (new owners at registration, or on request); see EMAIL_VERIFICATION. */
export async function sendVerificationEmail(app: FastifyInstance, user: { id: number; email: string }): Promise<void> {
  if (!app.config.emailVerification) {
    // The operator turned verification off: nobody is asked, everyone counts as verified.
    await app.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, user.id));
    return;
  }
  const { token, tokenHash } = await createUserLink(app.db, user.id, 'email_verify', VERIFY_LINK_HOURS * 60, user.email.toLowerCase());
  const link = `${publicUrlOf(app.config)}/api/vms/user/email/verify?token=${token}`;
  await app.jobs.enqueue('auth.verifyEmail', { userId: user.id, linkKey: tokenHash.slice(0, 32), link, minutes: VERIFY_LINK_HOURS * 60 });
}

/**
 * Forgot password and email verification (issue 14). The forgot call answers the same whether
 * or not the email belongs to anyone (the email is queued only when it does); the reset link
 * works once, for 30 minutes, and signs the user out everywhere (the one revocation path).
 */
export default async function recoveryRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post('/password/forgot', { schema: { response: { 200: successSchema.extend({ notice: z.string() }) }, tags, summary: 'Email a password reset link (same answer for any email)', body: forgotPasswordSchema } }, async (request) => {
    const emailKey = request.body.email.toLowerCase();
    await app.limiters.passwordResetIp.consume(ipKey(request.ip));
    await app.limiters.passwordReset.consume(emailKey);
    const [user] = await app.db.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${emailKey}`).limit(1);
    if (user) {
      const { token, tokenHash } = await createUserLink(app.db, user.id, 'password_reset', RESET_LINK_MINUTES);
      const link = `${publicUrlOf(app.config)}/reset-password?token=${token}`;
      await app.jobs.enqueue('auth.passwordReset', { userId: user.id, linkKey: tokenHash.slice(0, 32), link, minutes: RESET_LINK_MINUTES });
    }
    return { message: 'success', notice: FORGOT_PASSWORD_NOTICE };
  });

  app.post('/password/reset', { schema: { response: { 200: successSchema }, tags, summary: 'Choose a new password with a reset link; signs out every session', body: resetPasswordSchema } }, async (request) => {
    const { token, password } = request.body;
    const passwordHash = await hashPassword(password);
    const link = await consumeUserLink(app.db, token, 'password_reset');
    if (!link) throw validationError({ token: [RESET_LINK_INVALID] });
    const [user] = await app.db.transaction(async (tx) => {
      const updated = await tx.update(users).set({ passwordHash }).where(eq(users.id, link.userId)).returning({ id: users.id, accountId: users.accountId });
      await tx.delete(authTokens).where(eq(authTokens.userId, link.userId));
      return updated;
    });
    if (!user) throw validationError({ token: [RESET_LINK_INVALID] });
    await app.events.emit('sessions.revoked', { userId: user.id });
    await recordAudit(app.db, { accountId: user.accountId, actorUserId: user.id, action: 'auth.password_reset', target: `user:${user.id}`, ...requestOrigin(request) });
    return { message: 'success' };
  });

  /** The link of a verification email: verifies, then shows the console's security settings. */
  app.get('/user/email/verify', { schema: { tags, hide: true } }, async (request, reply) => {
    const link = await consumeUserLink(app.db, (request.query as { token?: unknown }).token, 'email_verify');
    const back = (outcome: string) => reply.redirect(`/settings/security?email_verified=${outcome}`, 302);
    if (!link) return back('invalid');
    // Only while the address is the one the link was sent to.
    const [user] = await app.db
      .update(users)
      .set({ emailVerifiedAt: new Date() })
      .where(sql`${users.id} = ${link.userId} and lower(${users.email}) = ${link.email}`)
      .returning({ id: users.id, accountId: users.accountId });
    if (!user) return back('invalid');
    await recordAudit(app.db, { accountId: user.accountId, actorUserId: user.id, action: 'auth.email_verified', target: `user:${user.id}`, ...requestOrigin(request) });
    return back('confirmed');
  });

  app.post('/user/email/verify/resend', { schema: { response: { 200: successSchema.extend({ email_verified: z.boolean() }) }, tags, summary: 'Send a new email verification link', ...secured }, onRequest: authenticate }, async (request) => {
    await app.limiters.emailChange.consume(`verify:${request.actor.id}`);
    const [user] = await app.db.select({ verifiedAt: users.emailVerifiedAt }).from(users).where(eq(users.id, request.actor.id));
    if (user && !user.verifiedAt) await sendVerificationEmail(app, request.actor);
    return { message: 'success', email_verified: Boolean(user?.verifiedAt) };
  });
}
