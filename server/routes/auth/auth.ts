import { and, eq, ne, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { loginSchema, passwordChangeSchema, profileSchema, registerSchema } from '@parley/shared';
import { planSummary } from '../../billing/limits.js';
import { issueToken } from '../../commands/issueToken.js';
import { registerAccount } from '../../commands/registerAccount.js';
import { deleteAccount } from '../../commands/deleteAccount.js';
import { authTokens, users } from '../../db/schema.js';
import { HttpError } from '../../errors.js';
import { actorForToken, authenticate } from '../../plugins/auth.js';
import { authorize } from '../../policies/index.js';
import { presentUser } from '../../presenters/user.js';
import { hashPassword, verifyPassword } from '../../services/secrets.js';
import { emailTaken, emailTakenError, isUniqueViolation } from '../../services/users.js';

const secured = { security: [{ bearer: [] }] };

export default async function authRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post('/register', { schema: { tags: ['auth'], body: registerSchema } }, async (request, reply) => {
    await app.limiters.registerIp.consume(request.ip);
    const { name, email, password } = request.body;
    if (await emailTaken(app.db, email)) throw emailTakenError();
    const created = await registerAccount(app.db, { name, email, password }).catch((e: unknown) => {
      // Two registrations of one email at once: the unique index decides.
      throw isUniqueViolation(e) ? emailTakenError() : e;
    });
    const actor = await actorForToken(app.db, created.token);
    return reply.status(201).send({ message: 'success', token: created.token, user: presentUser(actor!) });
  });

  app.post('/login', { schema: { tags: ['auth'], body: loginSchema } }, async (request) => {
    const { email, password } = request.body;
    await app.limiters.loginIp.consume(request.ip);
    const emailKey = email.toLowerCase();
    // Once an email is locked, even the right password waits: guessing must not pay off.
    await app.limiters.loginEmail.check(emailKey);
    const [user] = await app.db
      .select({ id: users.id, passwordHash: users.passwordHash })
      .from(users)
      .where(sql`lower(${users.email}) = ${emailKey}`)
      .limit(1);
    const ok = await verifyPassword(user?.passwordHash, password);
    if (!ok || !user) {
      await app.limiters.loginEmail.consume(emailKey);
      throw new HttpError(401, 'Invalid email or password');
    }
    await app.limiters.loginEmail.reset(emailKey);
    const token = await issueToken(app.db, user.id);
    const actor = await actorForToken(app.db, token);
    return { message: 'success', token, user: presentUser(actor!) };
  });

  app.post('/logout', { schema: { tags: ['auth'], ...secured }, onRequest: authenticate }, async (request) => {
    await app.db.delete(authTokens).where(eq(authTokens.tokenHash, request.actor.tokenHash));
    await app.events.emit('sessions.revoked', { tokenHash: request.actor.tokenHash });
    return { message: 'success' };
  });

  app.get('/user', { schema: { tags: ['auth'], ...secured }, onRequest: authenticate }, async (request) => {
    return { ...presentUser(request.actor), plan: await planSummary(app.db, request.actor.accountId, new Date()) };
  });

  app.put(
    '/user/update',
    { schema: { tags: ['auth'], body: profileSchema, ...secured }, onRequest: authenticate },
    async (request) => {
      const { name, email } = request.body;
      if (await emailTaken(app.db, email, request.actor.id)) throw emailTakenError();
      try {
        await app.db.update(users).set({ name, email }).where(eq(users.id, request.actor.id));
      } catch (e) {
        if (isUniqueViolation(e)) throw emailTakenError();
        throw e;
      }
      return { message: 'success', data: presentUser({ ...request.actor, name, email }) };
    },
  );

  app.put(
    '/password/update',
    { schema: { tags: ['auth'], body: passwordChangeSchema, ...secured }, onRequest: authenticate },
    async (request) => {
      const { current, new: next } = request.body;
      const [user] = await app.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, request.actor.id));
      if (!(await verifyPassword(user?.hash, current))) {
        const msg = 'The current password is incorrect';
        throw new HttpError(422, msg, { current: [msg] });
      }
      const passwordHash = await hashPassword(next);
      await app.db.transaction(async (tx) => {
        await tx.update(users).set({ passwordHash }).where(eq(users.id, request.actor.id));
        // Every other session of this user ends; the one that changed the password stays.
        await tx
          .delete(authTokens)
          .where(and(eq(authTokens.userId, request.actor.id), ne(authTokens.tokenHash, request.actor.tokenHash)));
      });
      await app.events.emit('sessions.revoked', { userId: request.actor.id, exceptTokenHash: request.actor.tokenHash });
      return { message: 'success' };
    },
  );

  app.delete('/user/delete', { schema: { tags: ['auth'], ...secured }, onRequest: authenticate }, async (request) => {
    authorize(request.actor, 'account.delete');
    await deleteAccount(app, request.actor.accountId);
    await app.events.emit('sessions.revoked', { accountId: request.actor.accountId });
    return { message: 'success' };
  });

}
