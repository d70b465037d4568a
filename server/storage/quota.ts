import { eq } from 'drizzle-orm';
import type { StorageUsageDto } from '@parley/shared';
import { planInForce } from '../billing/limits.js';
import type { Tx } from '../db/client.js';
import { accountStorage, plans } from '../db/schema.js';

const MB = 1024 * 1024;

/** The storage quota of the plan in force, in bytes (plans.storage_quota_mb); null when none. */
export async function storageQuotaBytes(db: Tx, accountId: string, now: Date): Promise<number | null> {
  const { plan } = await planInForce(db, accountId, now);
  const [row] = await db.select({ mb: plans.storageQuotaMb }).from(plans).where(eq(plans.code, plan.toLowerCase()));
  return row?.mb === null || row?.mb === undefined ? null : row.mb * MB;
}

/** What the account stores against its plan's quota: one row read, however many files. */
export async function storageUsage(db: Tx, accountId: string, now: Date): Promise<StorageUsageDto> {
  const [used] = await db.select().from(accountStorage).where(eq(accountStorage.accountId, accountId));
  const quota = await storageQuotaBytes(db, accountId, now);
  const usedBytes = used?.bytes ?? 0;
  return {
    used_bytes: usedBytes,
    files: used?.files ?? 0,
    quota_bytes: quota,
    quota_reached: quota !== null && usedBytes >= quota,
  };
}
