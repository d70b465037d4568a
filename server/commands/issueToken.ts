import type { Tx } from '../db/client.js';
import { authTokens } from '../db/schema.js';
import { hashToken, newToken } from '../services/secrets.js';

/** A new session for a user; only the hash is kept. */
export async function issueToken(db: Tx, userId: number): Promise<string> {
  const token = newToken();
  await db.insert(authTokens).values({ userId, tokenHash: hashToken(token) });
  return token;
}
