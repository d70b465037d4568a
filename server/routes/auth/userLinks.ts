import { and, eq, gt } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { type UserLinkPurpose, userLinks } from '../../db/schema.js';
import { hashToken, newToken } from '../../services/secrets.js';

/**
 * Single-use links and challenges for one user (password reset, email verification, the second
 * step of a two-factor sign-in): a 256-bit token, only its hash stored, one live link per user
 * and purpose (a new one replaces the old).
 */
export async function createUserLink(db: Tx, userId: number, purpose: UserLinkPurpose, minutes: number, email = ''): Promise<{ token: string; tokenHash: string }> {
  const token = newToken();
  const tokenHash = hashToken(token);
  await db.delete(userLinks).where(and(eq(userLinks.userId, userId), eq(userLinks.purpose, purpose)));
  await db.insert(userLinks).values({ tokenHash, userId, purpose, email, expiresAt: new Date(Date.now() + minutes * 60_000) });
  return { token, tokenHash };
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Spends a link: its row when the token is live (it then works no more), else undefined. */
export async function consumeUserLink(db: Tx, token: unknown, purpose: UserLinkPurpose) {
  if (typeof token !== 'string' || !TOKEN.test(token)) return undefined;
  const [row] = await db
    .delete(userLinks)
    .where(and(eq(userLinks.tokenHash, hashToken(token)), eq(userLinks.purpose, purpose), gt(userLinks.expiresAt, new Date())))
    .returning();
  return row;
}

/** Reads a live link without spending it (a two-factor challenge survives a wrong code). */
export async function findUserLink(db: Tx, token: unknown, purpose: UserLinkPurpose) {
  if (typeof token !== 'string' || !TOKEN.test(token)) return undefined;
  const [row] = await db
    .select()
    .from(userLinks)
    .where(and(eq(userLinks.tokenHash, hashToken(token)), eq(userLinks.purpose, purpose), gt(userLinks.expiresAt, new Date())));
  return row;
}
