import { and, ne, sql } from 'drizzle-orm';
import type { Tx } from '../db/client.js';
import { users } from '../db/schema.js';
import { HttpError } from '../errors.js';

/** One text for every place an email can clash (register, profile, team), as SPEC.md shows it. */
export const EMAIL_TAKEN = 'The email has already been taken.';

export const emailTakenError = (): HttpError => new HttpError(409, EMAIL_TAKEN, { email: [EMAIL_TAKEN] });

/** Emails are unique across all users, whatever their case (the users_email_lower_idx index). */
export async function emailTaken(db: Tx, email: string, exceptUserId?: number): Promise<boolean> {
  const same = sql`lower(${users.email}) = lower(${email})`;
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(exceptUserId ? and(same, ne(users.id, exceptUserId)) : same)
    .limit(1);
  return row !== undefined;
}

