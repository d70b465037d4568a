import { and, eq, isNull, lt, or, count } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Secret, TOTP } from 'otpauth';
import {
  RECOVERY_CODE_COUNT,
  TWO_FACTOR_ALREADY_ON,
  TWO_FACTOR_CHALLENGE_EXPIRED,
  TWO_FACTOR_CODE_INVALID,
  TWO_FACTOR_NOT_SET_UP,
  TWO_FACTOR_OWNER_FIRST,
  TWO_FACTOR_REQUIRED_BY_TEAM,
  type SecurityStatusDto,
  type TwoFactorSetupDto,
  passwordConfirmSchema,
  securitySettingsSchema,
  twoFactorEnableSchema,
  twoFactorLoginSchema,
} from '@parley/shared';
import { z } from 'zod';
import { issueToken } from '../../commands/issueToken.js';
import type { Tx } from '../../db/client.js';
import { accounts, authTokens, recoveryCodes, users } from '../../db/schema.js';
import { HttpError, validationError } from '../../errors.js';
import { actorForToken, authenticate } from '../../plugins/auth.js';
import { type Actor, authorize } from '../../policies/index.js';
import { presentUser } from '../../presenters/user.js';
import { audit, recordAudit, requestOrigin } from '../../services/audit.js';
import { hashToken, SecretBox, verifyPassword } from '../../services/secrets.js';
import { consumeUserLink, createUserLink, findUserLink } from './userLinks.js';
import { okSchema, securityStatusDtoSchema, signedInSchema, successSchema, twoFactorSetupDtoSchema } from '../../presenters/dtoSchemas.js';

const secured = { security: [{ bearer: [] }] };
const tags = ['auth'];
/** How long the second step of a sign-in may wait. */
const CHALLENGE_MINUTES = 5;
const PERIOD = 30;
const ISSUER = 'Parley';
const PASSWORD_WRONG = 'The password is incorrect';

const totpOf = (secret: string, email: string) => new TOTP({ issuer: ISSUER, label: email, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secret) });

/**
 * An authenticator code for the user's secret, accepted once: one step of clock drift either way,
 * and never a step at or before the last one used (a code seen over a shoulder is spent).
 */
async function spendTotp(db: Tx, box: SecretBox, user: { id: number; email: string; totpSecret: string | null }, code: string): Promise<boolean> {
  if (!user.totpSecret || !/^\d{6}$/.test(code)) return false;
  const secret = box.open(user.totpSecret);
  // A secret written in clear (before sealing, or by an older node in a rolling restart) is sealed now.
  if (!SecretBox.isSealed(user.totpSecret)) {
    await db.update(users).set({ totpSecret: box.seal(secret) }).where(and(eq(users.id, user.id), eq(users.totpSecret, user.totpSecret)));
  }
  const delta = totpOf(secret, user.email).validate({ token: code, window: 1 });
  if (delta === null) return false;
  const step = Math.floor(Date.now() / 1000 / PERIOD) + delta;
  const spent = await db
    .update(users)
    .set({ totpLastStep: step })
    .where(and(eq(users.id, user.id), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
    .returning({ id: users.id });
  return spent.length > 0;
}

/** A recovery code, spent once. */
async function spendRecoveryCode(db: Tx, userId: number, code: string): Promise<boolean> {
  if (!/^[a-z2-7]{6}-?[a-z2-7]{6}$/.test(code)) return false;
  const normal = code.replace('-', '');
  const used = await db
    .update(recoveryCodes)
    .set({ usedAt: new Date() })
    .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, hashToken(normal)), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  return used.length > 0;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
/** Ten new recovery codes (60 random bits each), replacing any old ones; only their hashes are kept. */
async function newRecoveryCodes(db: Tx, userId: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = new Secret({ size: 12 }).bytes;
    const chars = Array.from(bytes, (b) => BASE32[b % 32]).join('');
    return `${chars.slice(0, 6)}-${chars.slice(6, 12)}`;
  });
  await db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
  await db.insert(recoveryCodes).values(codes.map((c) => ({ userId, codeHash: hashToken(c.replace('-', '')) })));
  return codes;
}

/** Starts (or restarts) a set-up: a new secret, live only once a code from it is confirmed. */
async function startSetup(db: Tx, box: SecretBox, user: { id: number; email: string }): Promise<TwoFactorSetupDto> {
  const secret = new Secret({ size: 20 }).base32;
  await db.update(users).set({ totpSecret: box.seal(secret), totpEnabledAt: null, totpLastStep: null }).where(eq(users.id, user.id));
  const otpauthUrl = totpOf(secret, user.email).toString();
  return { secret, otpauth_url: otpauthUrl, qr: await (await import('qrcode')).default.toDataURL(otpauthUrl, { margin: 1, width: 240 }) };
}

/** Confirms the set-up with a code from the new secret: two-factor is on, ten recovery codes made. */
async function enable(app: FastifyInstance, userId: number, code: string): Promise<string[]> {
  const [user] = await app.db.select({ id: users.id, email: users.email, totpSecret: users.totpSecret, enabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, userId));
  if (!user?.totpSecret) throw new HttpError(409, TWO_FACTOR_NOT_SET_UP);
  if (user.enabledAt) throw new HttpError(409, TWO_FACTOR_ALREADY_ON);
  await app.limiters.twoFactor.check(`user:${userId}`);
  if (!(await spendTotp(app.db, app.secrets, user, code))) {
    await app.limiters.twoFactor.consume(`user:${userId}`);
    throw validationError({ code: [TWO_FACTOR_CODE_INVALID] });
  }
  return app.db.transaction(async (tx) => {
    await tx.update(users).set({ totpEnabledAt: new Date() }).where(eq(users.id, userId));
    return newRecoveryCodes(tx, userId);
  });
}

/**
 * After the right password: whether a second step is needed. A user with two-factor gets a
 * challenge; so does a user without it in a team that requires it (the challenge then only
 * serves to set it up).
 */
export async function twoFactorGate(app: FastifyInstance, userId: number): Promise<{ challenge: string; setup: boolean } | undefined> {
  const [row] = await app.db
    .select({ enabledAt: users.totpEnabledAt, required: accounts.requireTwoFactor })
    .from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(eq(users.id, userId));
  if (!row || (!row.enabledAt && !row.required)) return undefined;
  const setup = !row.enabledAt;
  const { token } = await createUserLink(app.db, userId, setup ? 'two_factor_setup' : 'two_factor', CHALLENGE_MINUTES);
  return { challenge: token, setup };
}

/** The end of every sign-in: a session recorded with where it came from, in the audit log, SPEC's `{ token, user }`. */
export async function finishSignIn(app: FastifyInstance, request: FastifyRequest, user: { id: number; accountId: string }, detail?: Record<string, unknown>) {
  const origin = requestOrigin(request);
  const token = await issueToken(app.db, user.id, origin);
  await recordAudit(app.db, { accountId: user.accountId, actorUserId: user.id, action: 'auth.signed_in', target: `user:${user.id}`, ...origin, ...(detail ? { detail } : {}) });
  const actor = await actorForToken(app.db, token, app.config.sessions);
  return { message: 'success' as const, token, user: presentUser(actor!) };
}

async function checkPassword(app: FastifyInstance, actor: Actor, password: string): Promise<void> {
  const key = String(actor.id);
  await app.limiters.passwordCheck.check(key);
  const [user] = await app.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, actor.id));
  if (!(await verifyPassword(user?.hash, password))) {
    await app.limiters.passwordCheck.consume(key);
    throw validationError({ password: [PASSWORD_WRONG] });
  }
  await app.limiters.passwordCheck.reset(key);
}

const challengeOnly = z.object({ challenge: twoFactorLoginSchema.shape.challenge });

export default async function twoFactorRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post('/login/2fa', { schema: { response: { 200: signedInSchema }, tags, summary: 'Second step of a sign-in: an authenticator or recovery code', body: twoFactorLoginSchema } }, async (request) => {
    const link = await findUserLink(app.db, request.body.challenge, 'two_factor');
    if (!link) throw new HttpError(401, TWO_FACTOR_CHALLENGE_EXPIRED);
    const key = `user:${link.userId}`;
    await app.limiters.twoFactor.check(key);
    const [user] = await app.db.select({ id: users.id, accountId: users.accountId, email: users.email, totpSecret: users.totpSecret }).from(users).where(eq(users.id, link.userId));
    if (!user) throw new HttpError(401, TWO_FACTOR_CHALLENGE_EXPIRED);
    const { code } = request.body;
    const method = (await spendTotp(app.db, app.secrets, user, code)) ? 'authenticator' : (await spendRecoveryCode(app.db, user.id, code)) ? 'recovery_code' : null;
    if (!method) {
      await app.limiters.twoFactor.consume(key);
      await recordAudit(app.db, { accountId: user.accountId, actorUserId: user.id, action: 'auth.sign_in_failed', target: `user:${user.id}`, detail: { step: 'two_factor' }, ...requestOrigin(request) });
      throw new HttpError(401, TWO_FACTOR_CODE_INVALID);
    }
    // The challenge works once (a second request with it finds nothing).
    if (!(await consumeUserLink(app.db, request.body.challenge, 'two_factor'))) throw new HttpError(401, TWO_FACTOR_CHALLENGE_EXPIRED);
    await app.limiters.twoFactor.reset(key);
    return finishSignIn(app, request, user, { two_factor: method });
  });

  // A team that requires two-factor: a member without it sets it up inside the sign-in.
  app.post('/login/2fa/setup', { schema: { response: { 200: okSchema(twoFactorSetupDtoSchema) }, tags, summary: 'Set up two-factor during a sign-in the team requires it for', body: challengeOnly } }, async (request) => {
    const link = await findUserLink(app.db, request.body.challenge, 'two_factor_setup');
    if (!link) throw new HttpError(401, TWO_FACTOR_CHALLENGE_EXPIRED);
    const [user] = await app.db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, link.userId));
    if (!user) throw new HttpError(401, TWO_FACTOR_CHALLENGE_EXPIRED);
    return { message: 'success', data: await startSetup(app.db, app.secrets, user) };
  });

  app.post('/login/2fa/enable', { schema: { response: { 200: signedInSchema.extend({ recovery_codes: z.array(z.string()) }) }, tags, summary: 'Confirm the set-up during sign-in: answers { token, user, recovery_codes }', body: twoFactorLoginSchema } }, async (request) => {
    const link = await findUserLink(app.db, request.body.challenge, 'two_factor_setup');
    if (!link) throw new HttpError(401, TWO_FACTOR_CHALLENGE_EXPIRED);
    const codes = await enable(app, link.userId, request.body.code);
    await consumeUserLink(app.db, request.body.challenge, 'two_factor_setup');
    const [user] = await app.db.select({ id: users.id, accountId: users.accountId }).from(users).where(eq(users.id, link.userId));
    await recordAudit(app.db, { accountId: user!.accountId, actorUserId: user!.id, action: 'auth.two_factor_enabled', target: `user:${user!.id}`, ...requestOrigin(request) });
    return { ...(await finishSignIn(app, request, user!, { two_factor: 'set_up' })), recovery_codes: codes };
  });

  app.get('/user/security', { schema: { response: { 200: okSchema(securityStatusDtoSchema) }, tags, summary: 'This user’s sign-in security: email verified, two-factor, recovery codes left', ...secured }, onRequest: authenticate }, async (request) => {
    const [row] = await app.db
      .select({ email: users.email, verifiedAt: users.emailVerifiedAt, enabledAt: users.totpEnabledAt, required: accounts.requireTwoFactor })
      .from(users)
      .innerJoin(accounts, eq(accounts.id, users.accountId))
      .where(eq(users.id, request.actor.id));
    const [left] = await app.db.select({ n: count() }).from(recoveryCodes).where(and(eq(recoveryCodes.userId, request.actor.id), isNull(recoveryCodes.usedAt)));
    const data: SecurityStatusDto = {
      email: row!.email,
      email_verified: row!.verifiedAt !== null,
      two_factor_enabled: row!.enabledAt !== null,
      recovery_codes_left: row!.enabledAt ? Number(left?.n ?? 0) : 0,
      require_two_factor: row!.required,
    };
    return { message: 'success', data };
  });

  app.post('/user/two-factor/setup', { schema: { response: { 200: okSchema(twoFactorSetupDtoSchema) }, tags, summary: 'Start two-factor set-up: a new secret and its QR code', ...secured }, onRequest: authenticate }, async (request) => {
    const [row] = await app.db.select({ enabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, request.actor.id));
    if (row?.enabledAt) throw new HttpError(409, TWO_FACTOR_ALREADY_ON);
    return { message: 'success', data: await startSetup(app.db, app.secrets, request.actor) };
  });

  app.post('/user/two-factor/enable', { schema: { response: { 200: successSchema.extend({ recovery_codes: z.array(z.string()) }) }, tags, summary: 'Confirm set-up with a code: answers the ten recovery codes, once', body: twoFactorEnableSchema, ...secured }, onRequest: authenticate }, async (request) => {
    const codes = await enable(app, request.actor.id, request.body.code);
    await audit(request, 'auth.two_factor_enabled', `user:${request.actor.id}`);
    return { message: 'success', recovery_codes: codes };
  });

  app.post('/user/two-factor/disable', { schema: { response: { 200: successSchema }, tags, summary: 'Turn two-factor off (password needed)', body: passwordConfirmSchema, ...secured }, onRequest: authenticate }, async (request) => {
    await checkPassword(app, request.actor, request.body.password);
    const [acc] = await app.db.select({ required: accounts.requireTwoFactor }).from(accounts).where(eq(accounts.id, request.actor.accountId));
    if (acc?.required) throw new HttpError(403, TWO_FACTOR_REQUIRED_BY_TEAM);
    await app.db.transaction(async (tx) => {
      await tx.update(users).set({ totpSecret: null, totpEnabledAt: null, totpLastStep: null }).where(eq(users.id, request.actor.id));
      await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, request.actor.id));
    });
    await audit(request, 'auth.two_factor_disabled', `user:${request.actor.id}`);
    return { message: 'success' };
  });

  app.post('/user/two-factor/recovery-codes', { schema: { response: { 200: successSchema.extend({ recovery_codes: z.array(z.string()) }) }, tags, summary: 'Ten new recovery codes (password needed); the old ones stop working', body: passwordConfirmSchema, ...secured }, onRequest: authenticate }, async (request) => {
    await checkPassword(app, request.actor, request.body.password);
    const [row] = await app.db.select({ enabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, request.actor.id));
    if (!row?.enabledAt) throw new HttpError(409, TWO_FACTOR_NOT_SET_UP);
    const codes = await app.db.transaction((tx) => newRecoveryCodes(tx, request.actor.id));
    await audit(request, 'auth.recovery_codes_regenerated', `user:${request.actor.id}`);
    return { message: 'success', recovery_codes: codes };
  });

  /** The owner requires two-factor for the whole team: members without it are signed out and set it up at their next sign-in. */
  const ownerOnly = async (request: { actor: Actor }) => authorize(request.actor, 'security.manage');
  app.put('/security/settings', { schema: { response: { 200: okSchema(z.object({ require_two_factor: z.boolean() })) }, tags, summary: 'Require two-factor sign-in for the whole team (owner)', body: securitySettingsSchema, ...secured }, onRequest: [authenticate, ownerOnly] }, async (request) => {
    const { require_two_factor } = request.body;
    const { accountId } = request.actor;
    if (require_two_factor) {
      const [me] = await app.db.select({ enabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, request.actor.id));
      if (!me?.enabledAt) throw validationError({ require_two_factor: [TWO_FACTOR_OWNER_FIRST] });
    }
    await app.db.update(accounts).set({ requireTwoFactor: require_two_factor }).where(eq(accounts.id, accountId));
    if (require_two_factor) {
      const without = await app.db.select({ id: users.id }).from(users).where(and(eq(users.accountId, accountId), isNull(users.totpEnabledAt)));
      for (const { id } of without) {
        await app.db.delete(authTokens).where(eq(authTokens.userId, id));
        await app.events.emit('sessions.revoked', { userId: id });
      }
    }
    await audit(request, 'settings.updated', 'security', { require_two_factor });
    return { message: 'success', data: { require_two_factor } };
  });
}
