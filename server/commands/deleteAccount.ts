import { eq, inArray, or, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { accounts, payments, sandboxCharges, sentEmails, users } from '../db/schema.js';
import { removeMailTo } from '../services/mail.js';

/**
 * Deletes the account and, by cascade, its users, tokens, visitors, conversations, messages,
 * payments and sent-email records; then what lives outside those rows: the sandbox provider's
 * charges (they carry the payer's email), the .eml copies of its emails in DATA_DIR/mail (they
 * carry the chats), and its files.
 */
export async function deleteAccount(app: FastifyInstance, accountId: string): Promise<void> {
  const addresses = await app.db.transaction(async (tx) => {
    const people = await tx.select({ email: users.email }).from(users).where(eq(users.accountId, accountId));
    const recipients = await tx.selectDistinct({ email: sentEmails.recipient }).from(sentEmails).where(eq(sentEmails.accountId, accountId));
    const emails = [...new Set([...people, ...recipients].map((r) => r.email.toLowerCase()))];
    const references = tx.select({ reference: payments.reference }).from(payments).where(eq(payments.accountId, accountId));
    await tx
      .delete(sandboxCharges)
      .where(
        emails.length > 0
          ? or(inArray(sandboxCharges.reference, references), inArray(sql`lower(${sandboxCharges.email})`, emails))
          : inArray(sandboxCharges.reference, references),
      );
    await tx.delete(accounts).where(eq(accounts.id, accountId));
    return emails;
  });
  await removeMailTo(app.config.dataDir, addresses);
  await app.storage.removeAccount(accountId);
}
