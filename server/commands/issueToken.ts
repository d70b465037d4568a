import type { Tx } from '../db/client.js';
import { authTokens } from '../db/schema.js';
import { hashToken, newToken } from '../services/secrets.js';

/** A new session for a user; only the hash is kept, with where it was signed in from (active sessions). */
export async function issueToken(db: Tx, userId: number, origin: { ip: string; userAgent: string } = { ip: '', userAgent: '' }): Promise<string> {
  const token = newToken();
  await db.insert(authTokens).values({ userId, tokenHash: hashToken(token), ip: origin.ip, userAgent: origin.userAgent });
  return token;
}
