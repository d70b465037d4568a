import { eq } from 'drizzle-orm';
import { TRIAL_DAYS } from '@parley/shared';
import type { Db } from '../db/client.js';
import { accounts, authTokens, plans, subscriptions, users, widgetSettings } from '../db/schema.js';
import { hashPassword, hashToken, newToken, randomId } from '../services/secrets.js';

export interface RegisterAccountInput {
  name: string;
  email: string;
  password: string;
  now?: Date;
}

/**
 * A new business: the account with its widget key and default widget settings, the owner
 * (is_admin, type owner), the 14-day Professional trial, and a first session token.
 */
export async function registerAccount(db: Db, input: RegisterAccountInput): Promise<{ token: string; userId: number }> {
  const passwordHash = await hashPassword(input.password);
  const now = input.now ?? new Date();
  const token = newToken();
  const userId = await db.transaction(async (tx) => {
    const [account] = await tx.insert(accounts).values({ widgetKey: randomId(18) }).returning({ id: accounts.id });
    if (!account) throw new Error('account insert returned nothing');
    const [user] = await tx
      .insert(users)
      .values({ accountId: account.id, name: input.name, email: input.email, passwordHash, isAdmin: true, type: 'owner' })
      .returning({ id: users.id });
    if (!user) throw new Error('user insert returned nothing');
    await tx.insert(widgetSettings).values({ accountId: account.id, name: input.name });
    const [professional] = await tx.select().from(plans).where(eq(plans.code, 'professional'));
    if (professional) {
      await tx.insert(subscriptions).values({
        accountId: account.id,
        planId: professional.id,
        planName: `${professional.name} (trial)`,
        amount: 0,
        status: 'trial',
        isActive: true,
        startDate: now,
        expiryDate: new Date(now.getTime() + TRIAL_DAYS * 86_400_000),
      });
    }
    await tx.insert(authTokens).values({ userId: user.id, tokenHash: hashToken(token) });
    return user.id;
  });
  return { token, userId };
}
