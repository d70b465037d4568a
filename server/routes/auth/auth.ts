import { and, eq, gt, ne, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { loginSchema, passwordChangeSchema, profileSchema, registerSchema } from '@parley/shared';
import { planSummary } from '../../billing/limits.js';
import { registerAccount } from '../../commands/registerAccount.js';
import { deleteAccount } from '../../commands/deleteAccount.js';
import { publicUrlOf } from '../../config.js';
import { authTokens, emailChanges, users } from '../../db/schema.js';
import { HttpError, isUniqueViolation } from '../../errors.js';
import { actorForToken, authenticate } from '../../plugins/auth.js';
import { authorize } from '../../policies/index.js';
import { presentUser } from '../../presenters/user.js';
import { hashPassword, hashToken, newToken, verifyPassword } from '../../services/secrets.js';
import { audit, recordAudit, requestOrigin } from '../../services/audit.js';
import { emailTaken, emailTakenError } from '../../services/users.js';
import recoveryRoutes, { sendVerificationEmail } from './recovery.js';
import twoFactorRoutes, { finishSignIn, twoFactorGate } from './twoFactor.js';
import { checkSignIn, isKnownDevice, signInAttempt, signInFailed, signInSucceeded } from './signInGuard.js';
import { okSchema, signedInSchema, successSchema, twoFactorChallengeDtoSchema, userDtoSchema } from '../../presenters/dtoSchemas.js';
import { z } from 'zod';

/** How long the link of an email change works. */
const EMAIL_CHANGE_HOURS = 24;
const PASSWORD_WRONG = 'The current password is incorrect';

const secured = { security: [{ bearer: [] }] };

export default async function authRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  await app.register(recoveryRoutes); // forgot password, email verification (issue 14)
  await app.register(twoFactorRoutes); // two-factor sign-in, security settings (issue 14)

  app.post('/register', { schema: { tags: ['auth'], body: registerSchema, response: { 201: signedInSchema } } }, async (request, reply) => {
    await app.limiters.registerIp.consume(request.ip);
    const { name, email, password } = request.body;
    if (await emailTaken(app.db, email)) throw emailTakenError();
    const created = await registerAccount(app.db, { name, email, password }).catch((e: unknown) => {
      // Two registrations of one email at once: the unique index decides.
      throw isUniqueViolation(e) ? emailTakenError() : e;
    });
    const actor = await actorForToken(app.db, created.token, app.config.sessions);
    await sendVerificationEmail(app, { id: created.userId, email });
    return reply.status(201).send({ message: 'success', token: created.token, user: presentUser(actor!) });
  });

  app.post('/login', { schema: { tags: ['auth'], body: loginSchema, response: { 200: z.union([signedInSchema, twoFactorChallengeDtoSchema]) } } }, async (request, reply) => {
    const { email, password } = request.body;
    const attempt = signInAttempt(request, email);
    const [user] = await app.db
      .select({ id: users.id, accountId: users.accountId, passwordHash: users.passwordHash })
      .from(users)
      .where(sql`lower(${users.email}) = ${attempt.emailKey}`)
      .limit(1);
    const knownDevice = await isKnownDevice(app, user?.id, attempt.device);
    await checkSignIn(app, attempt, knownDevice);
    const ok = await verifyPassword(user?.passwordHash, password);
    if (!ok || !user) {
      await signInFailed(app, attempt, user?.id);
      // Recorded in the account of the email tried (an unknown email belongs to no account).
      if (user) await recordAudit(app.db, { accountId: user.accountId, actorUserId: user.id, action: 'auth.sign_in_failed', target: `user:${user.id}`, ...requestOrigin(request) });
      throw new HttpError(401, 'Invalid email or password');
    }
    await signInSucceeded(app, attempt, user.id, knownDevice, request, reply);
    // A user with two-factor (or in a team that requires it) answers a second step first (PRODUCT.md section 11).
    const gate = await twoFactorGate(app, user.id);
    if (gate) return { message: 'success' as const, two_factor_required: true as const, challenge: gate.challenge, ...(gate.setup ? { setup_required: true as const } : {}) };
    return finishSignIn(app, request, user);
  });

  app.post('/logout', { schema: { tags: ['auth'], response: { 200: successSchema }, ...secured }, onRequest: authenticate }, async (request) => {
    await app.db.delete(authTokens).where(eq(authTokens.tokenHash, request.actor.tokenHash));
    await app.events.emit('sessions.revoked', { tokenHash: request.actor.tokenHash });
    await audit(request, 'auth.signed_out', `user:${request.actor.id}`);
    return { message: 'success' };
  });

  app.get('/user', { schema: { tags: ['auth'], response: { 200: userDtoSchema }, ...secured }, onRequest: authenticate }, async (request) => {
    return { ...presentUser(request.actor), plan: await planSummary(app.db, request.actor.accountId, new Date()) };
  });

  /**
   * Name changes at once. A new sign-in email only changes through a link sent to it, and the
   * answer is the same whether or not another user has that email: no oracle (docs/DECISIONS.md).
   */
  app.put(
    '/user/update',
    { schema: { tags: ['auth'], body: profileSchema, response: { 200: okSchema(userDtoSchema).extend({ pending_email: z.string().optional(), notice: z.string().optional() }) }, ...secured }, onRequest: authenticate },
    async (request) => {
      const { actor } = request;
      const { name, email } = request.body;
      const emailChanged = email.toLowerCase() !== actor.email.toLowerCase();
      if (emailChanged) await app.limiters.emailChange.consume(String(actor.id));
      if (email !== actor.email && !emailChanged) {
        // Only the case differs: the address is this user's own, nothing to confirm.
        await app.db.update(users).set({ name, email }).where(eq(users.id, actor.id));
        return { message: 'success', data: presentUser({ ...actor, name, email }) };
      }
      await app.db.update(users).set({ name }).where(eq(users.id, actor.id));
      if (!emailChanged) return { message: 'success', data: presentUser({ ...actor, name }) };
      const token = newToken();
      const tokenHash = hashToken(token);
      await app.db.transaction(async (tx) => {
        await tx.delete(emailChanges).where(eq(emailChanges.userId, actor.id));
        await tx.insert(emailChanges).values({ tokenHash, userId: actor.id, newEmail: email, expiresAt: new Date(Date.now() + EMAIL_CHANGE_HOURS * 3_600_000) });
      });
      // Always queued: the job sends nothing when the address belongs to another user.
      const link = `${publicUrlOf(app.config)}/api/vms/user/email/confirm?token=${token}`;
      await audit(request, 'auth.email_change_requested', `user:${actor.id}`);
      await app.jobs.enqueue('auth.emailChange', { userId: actor.id, changeKey: tokenHash.slice(0, 32), to: email, link, hours: EMAIL_CHANGE_HOURS });
      return {
        message: 'success',
        data: presentUser({ ...actor, name }),
        pending_email: email,
        notice: `We sent a confirmation link to ${email}. Your sign-in email changes once you open it.`,
      };
    },
  );

  /** The link of an email change: applies it, then shows the console's settings. */
  app.get('/user/email/confirm', { schema: { tags: ['auth'], hide: true } }, async (request, reply) => {
    const token = (request.query as { token?: unknown }).token;
    const back = (outcome: string) => reply.redirect(`/settings?email_change=${outcome}`, 302);
    if (typeof token !== 'string' || token.length > 100) return back('invalid');
    const [change] = await app.db
      .delete(emailChanges)
      .where(and(eq(emailChanges.tokenHash, hashToken(token)), gt(emailChanges.expiresAt, new Date())))
      .returning();
    if (!change) return back('invalid');
    try {
      // The link proves the new address is theirs: it is verified too.
      await app.db.update(users).set({ email: change.newEmail, emailVerifiedAt: new Date() }).where(eq(users.id, change.userId));
    } catch (e) {
      if (isUniqueViolation(e)) return back('taken');
      throw e;
    }
    return back('confirmed');
  });

  app.put(
    '/password/update',
    { schema: { response: { 200: successSchema }, tags: ['auth'], body: passwordChangeSchema, ...secured }, onRequest: authenticate },
    async (request) => {
      const { current, new: next } = request.body;
      // A stolen session must not guess the password: a few wrong answers, then 429.
      const limitKey = String(request.actor.id);
      await app.limiters.passwordCheck.check(limitKey);
      const [user] = await app.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, request.actor.id));
      if (!(await verifyPassword(user?.hash, current))) {
        await app.limiters.passwordCheck.consume(limitKey);
        throw new HttpError(422, PASSWORD_WRONG, { current: [PASSWORD_WRONG] });
      }
      await app.limiters.passwordCheck.reset(limitKey);
      const passwordHash = await hashPassword(next);
      await app.db.transaction(async (tx) => {
        await tx.update(users).set({ passwordHash }).where(eq(users.id, request.actor.id));
        // Every other session of this user ends; the one that changed the password stays.
        await tx
          .delete(authTokens)
          .where(and(eq(authTokens.userId, request.actor.id), ne(authTokens.tokenHash, request.actor.tokenHash)));
      });
      await app.events.emit('sessions.revoked', { userId: request.actor.id, exceptTokenHash: request.actor.tokenHash });
      await audit(request, 'auth.password_changed', `user:${request.actor.id}`);
      return { message: 'success' };
    },
  );

  app.delete('/user/delete', { schema: { tags: ['auth'], response: { 200: successSchema }, ...secured }, onRequest: authenticate }, async (request) => {
    authorize(request.actor, 'account.delete');
    await deleteAccount(app, request.actor.accountId);
    await app.events.emit('sessions.revoked', { accountId: request.actor.accountId });
    return { message: 'success' };
  });

}
