import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { accounts } from '../db/schema.js';

/** Deletes the account and, by cascade, its users, tokens, visitors, conversations, messages; then its files. */
export async function deleteAccount(app: FastifyInstance, accountId: string): Promise<void> {
  await app.db.delete(accounts).where(eq(accounts.id, accountId));
  await app.storage.removeAccount(accountId);
}
