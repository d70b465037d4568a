import { and, eq, isNull } from 'drizzle-orm';
import { EMAIL_NOT_VERIFIED } from '@parley/shared';
import type { Tx } from '../../db/client.js';
import { users } from '../../db/schema.js';
import { HttpError } from '../../errors.js';

/**
 * Payments and webhooks need the account's owner to have verified their email (issue 14); the
 * rest of the account works meanwhile. 403 in the envelope while the owner has not. With
 * EMAIL_VERIFICATION=false new owners are verified at sign-up (recovery.ts).
 */
export async function requireVerifiedOwner(db: Tx, accountId: string): Promise<void> {
  const [unverified] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.accountId, accountId), eq(users.type, 'owner'), isNull(users.emailVerifiedAt)))
    .limit(1);
  if (unverified) throw new HttpError(403, EMAIL_NOT_VERIFIED);
}

/** How long a verification link works. */
export const VERIFY_LINK_HOURS = 72;
