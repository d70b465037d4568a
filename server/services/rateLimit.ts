import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisClientType } from 'redis';
import { HttpError } from '../errors.js';

export interface Limiter {
  /** Counts one hit for key; throws 429 in the envelope once the budget is spent. */
  consume(key: string): Promise<void>;
  /** Throws 429 when key's budget is already spent, without counting a hit. */
  check(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

const tooMany = () => new HttpError(429, 'Too many attempts. Please try again later.');

export function createLimiter(
  name: string,
  points: number,
  durationSeconds: number,
  redis: RedisClientType | undefined,
): Limiter {
  const opts = { keyPrefix: `parley:rl:${name}`, points, duration: durationSeconds };
  const limiter: RateLimiterAbstract = redis
    ? new RateLimiterRedis({ ...opts, storeClient: redis, useRedisPackage: true, insuranceLimiter: new RateLimiterMemory(opts) })
    : new RateLimiterMemory(opts);
  return {
    async consume(key) {
      try {
        await limiter.consume(key);
      } catch (e) {
        if (e instanceof RateLimiterRes) {
          throw tooMany();
        }
        throw e;
      }
    },
    async check(key) {
      const res = await limiter.get(key);
      if (res && res.consumedPoints >= points) throw tooMany();
    },
    async reset(key) {
      await limiter.delete(key);
    },
  };
}
