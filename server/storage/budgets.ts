import type { RedisClientType } from 'redis';
import type { UploadBudget, UploadsConfig } from '../config.js';
import { createWeightedLimiter, type WeightedLimiter } from '../services/rateLimit.js';

/** Who sends an upload: every upload counts for its account, a widget visitor's for them too. */
export interface Uploader {
  accountId: string;
  visitorId?: string | undefined;
}

export const UPLOAD_BUDGET_SPENT = 'Too many uploads. Please try again later.';

const HOUR = 3600;
const DAY = 24 * HOUR;

/** Files and bytes per hour and per day for one kind of key (visitor or account). */
class Budget {
  private readonly counts: WeightedLimiter[];
  private readonly bytes: WeightedLimiter[];

  constructor(prefix: string, b: UploadBudget, redis: RedisClientType | undefined) {
    const limiter = (name: string, points: number, seconds: number) =>
      createWeightedLimiter(`${prefix}:${name}`, points, seconds, redis, UPLOAD_BUDGET_SPENT);
    this.counts = [limiter('n:h', b.perHour, HOUR), limiter('n:d', b.perDay, DAY)];
    this.bytes = [limiter('b:h', b.bytesPerHour, HOUR), limiter('b:d', b.bytesPerDay, DAY)];
  }

  async check(key: string): Promise<void> {
    for (const l of [...this.counts, ...this.bytes]) await l.check(key);
  }

  async spend(key: string, bytes: number): Promise<void> {
    for (const l of this.counts) await l.consume(key, 1);
    for (const l of this.bytes) await l.consume(key, Math.max(1, bytes));
  }
}

/**
 * The upload budgets (UPLOADS_PER_* and UPLOAD_MB_PER_*): per widget visitor and per account,
 * shared by every node through Redis when REDIS_URL is set. Over budget: 429 with Retry-After.
 */
export class UploadBudgets {
  private readonly visitor: Budget;
  private readonly account: Budget;

  constructor(config: UploadsConfig, redis: RedisClientType | undefined) {
    this.visitor = new Budget(`${config.budgetPrefix}:visitor`, config.visitor, redis);
    this.account = new Budget(`${config.budgetPrefix}:account`, config.account, redis);
  }

  /** Before reading an upload: refuses at once when a budget is already spent. */
  async check(who: Uploader): Promise<void> {
    if (who.visitorId) await this.visitor.check(who.visitorId);
    await this.account.check(who.accountId);
  }

  /** Once its size is known, before anything is stored: spends one file and its bytes. */
  async spend(who: Uploader, bytes: number): Promise<void> {
    if (who.visitorId) await this.visitor.spend(who.visitorId, bytes);
    await this.account.spend(who.accountId, bytes);
  }
}
