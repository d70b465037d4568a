import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { users } from '../../db/schema.js';
import { defineJob } from '../../jobs/types.js';
import { sendOnce } from '../../notifications/sendOnce.js';
import { emailTaken } from '../../services/users.js';
import { composeEmailChangeEmail, composeLoginAttackEmail, composePasswordResetEmail, composeVerifyEmail } from './emails.js';

const loginAttack = z.object({
  userId: z.number().int().positive(),
  failures: z.number().int().positive(),
  /** When the throttle engaged (ms): the email's idempotency key. */
  at: z.number().int().positive(),
});

const emailChange = z.object({
  userId: z.number().int().positive(),
  /** The change's row (its token hash): the email's idempotency key. */
  changeKey: z.string().min(1).max(100),
  to: z.email(),
  link: z.url(),
  hours: z.number().int().positive(),
});

/** A single-use link to one user (password reset, email verification); sent to their current address. */
const userLink = z.object({
  userId: z.number().int().positive(),
  /** The link's row (part of its token hash): the email's idempotency key. */
  linkKey: z.string().min(1).max(100),
  link: z.url(),
  minutes: z.number().int().positive(),
});

/** The sign-in safety emails: one when an account's sign-in is under attack, one per email change. */
export const authJobs = [
  defineJob({
    name: 'auth.loginAttack',
    schema: loginAttack,
    async handle(p, ctx) {
      const [user] = await ctx.db.select({ email: users.email, name: users.name, accountId: users.accountId }).from(users).where(eq(users.id, p.userId));
      if (!user) return;
      const record = { key: `loginAttack:${p.userId}:${p.at}`, accountId: user.accountId, conversationId: null, kind: 'loginAttack' as const, recipient: user.email };
      await sendOnce(ctx, record, () =>
        composeLoginAttackEmail({ to: user.email, name: user.name, failures: p.failures, at: new Date(p.at), link: `${ctx.publicUrl}/settings` }),
      );
    },
  }),
  defineJob({
    name: 'auth.emailChange',
    schema: emailChange,
    async handle(p, ctx) {
      const [user] = await ctx.db.select({ name: users.name, accountId: users.accountId }).from(users).where(eq(users.id, p.userId));
      // Another user's address gets nothing: the requester learns nothing either way.
      if (!user || (await emailTaken(ctx.db, p.to, p.userId))) return;
      const record = { key: `emailChange:${p.changeKey}`, accountId: user.accountId, conversationId: null, kind: 'emailChange' as const, recipient: p.to };
      await sendOnce(ctx, record, () => composeEmailChangeEmail({ to: p.to, name: user.name, link: p.link, hours: p.hours }));
    },
  }),
  defineJob({
    name: 'auth.passwordReset',
    schema: userLink,
    async handle(p, ctx) {
      const [user] = await ctx.db.select({ email: users.email, name: users.name, accountId: users.accountId }).from(users).where(eq(users.id, p.userId));
      if (!user) return;
      const record = { key: `passwordReset:${p.linkKey}`, accountId: user.accountId, conversationId: null, kind: 'passwordReset' as const, recipient: user.email };
      await sendOnce(ctx, record, () => composePasswordResetEmail({ to: user.email, name: user.name, link: p.link, minutes: p.minutes }));
    },
  }),
  defineJob({
    name: 'auth.verifyEmail',
    schema: userLink,
    async handle(p, ctx) {
      const [user] = await ctx.db.select({ email: users.email, name: users.name, accountId: users.accountId }).from(users).where(eq(users.id, p.userId));
      if (!user) return;
      const record = { key: `verifyEmail:${p.linkKey}`, accountId: user.accountId, conversationId: null, kind: 'verifyEmail' as const, recipient: user.email };
      await sendOnce(ctx, record, () => composeVerifyEmail({ to: user.email, name: user.name, link: p.link, hours: Math.round(p.minutes / 60) }));
    },
  }),
] as const;
