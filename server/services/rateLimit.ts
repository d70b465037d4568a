import { isIPv4, isIPv6 } from 'node:net';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisClientType } from 'redis';
import type { WidgetLimitsConfig } from '../config.js';
import { HttpError } from '../errors.js';

/**
 * Rate limits and the widget's socket slots, counted in Redis when REDIS_URL is set (so every
 * node shares them) and in this process otherwise. Every key starts with RATE_LIMIT_PREFIX.
 */

export const TOO_MANY_REQUESTS = 'Too many requests. Please try again later.';
export const TOO_MANY_CONNECTIONS = 'Too many connections. This tab keeps up by polling.';

export interface Limiter {
  /** Counts one hit for key; throws 429 in the envelope (with Retry-After) once the budget is spent. */
  consume(key: string): Promise<void>;
  /** Throws 429 when key's budget is already spent, without counting a hit. */
  check(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

const secondsUntil = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000));

export function createLimiter(
  name: string,
  points: number,
  durationSeconds: number,
  redis: RedisClientType | undefined,
  { prefix = 'parley:rl', message = 'Too many attempts. Please try again later.' }: { prefix?: string; message?: string } = {},
): Limiter {
  const opts = { keyPrefix: `${prefix}:${name}`, points, duration: durationSeconds };
  const limiter: RateLimiterAbstract = redis
    ? new RateLimiterRedis({
        ...opts,
        storeClient: redis,
        useRedisPackage: true,
        // Once a key is over its budget this node refuses it from memory until the window ends: a flood costs Redis nothing.
        inMemoryBlockOnConsumed: points + 1,
        insuranceLimiter: new RateLimiterMemory(opts),
      })
    : new RateLimiterMemory(opts);
  const refuse = (res: RateLimiterRes) => Object.assign(new HttpError(429, message, undefined, secondsUntil(res)), { limit: name });
  return {
    async consume(key) {
      try {
        await limiter.consume(key);
      } catch (e) {
        if (e instanceof RateLimiterRes) throw refuse(e);
        throw e;
      }
    },
    async check(key) {
      const res = await limiter.get(key);
      if (res && res.consumedPoints >= points) throw refuse(res);
    },
    async reset(key) {
      await limiter.delete(key);
    },
  };
}

/**
 * The key an address is counted under: IPv4 as is, IPv6 by its /64 (one subscriber usually holds
 * a whole /64, so counting single addresses would let it rotate freely).
 */
export function ipKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1] as string;
  if (isIPv4(ip) || !isIPv6(ip)) return ip;
  const [head = '', tail] = ip.toLowerCase().split('::');
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  // An embedded IPv4 tail (a.b.c.d) takes two groups.
  const last = right.length ? right : left;
  const v4 = last.length ? /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(last[last.length - 1] as string) : null;
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    last.splice(last.length - 1, 1, ((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
  }
  const full = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${full
    .slice(0, 4)
    .map((g) => Number.parseInt(g || '0', 16).toString(16))
    .join(':')}::/64`;
}

/** Where a live widget socket is counted: its id, its visitor and its client address. */
export interface SocketSlot {
  id: string;
  visitorId: string;
  ip: string;
}

/**
 * Concurrent widget sockets per visitor and per IP, across nodes. A slot lives in two sorted sets
 * (score = expiry); a node refreshes its sockets' slots while they live, so the slots of a node
 * that died without closing them expire by themselves after SLOT_TTL_MS.
 */
export interface SocketCap {
  /** Takes a slot, or answers which cap is full. */
  acquire(slot: SocketSlot): Promise<'ok' | 'visitor' | 'ip'>;
  release(slot: SocketSlot): Promise<void>;
  /** Pushes the expiry of live slots forward; called every SLOT_REFRESH_MS. */
  refresh(slots: readonly SocketSlot[]): Promise<void>;
}

export const SLOT_TTL_MS = 90_000;
export const SLOT_REFRESH_MS = 30_000;

// KEYS: visitor set, ip set. ARGV: now, expiry, member, visitor cap, ip cap, key ttl (ms).
const ACQUIRE = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 2 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return 0`;

function memorySocketCap(perVisitor: number, perIp: number): SocketCap {
  const sets = new Map<string, Map<string, number>>();
  const live = (key: string, now: number) => {
    const set = sets.get(key) ?? new Map<string, number>();
    for (const [member, expiry] of set) if (expiry <= now) set.delete(member);
    sets.set(key, set);
    return set;
  };
  const drop = (key: string, member: string) => {
    const set = sets.get(key);
    set?.delete(member);
    if (set?.size === 0) sets.delete(key);
  };
  return {
    async acquire(slot) {
      const now = Date.now();
      const v = live(`v:${slot.visitorId}`, now);
      const i = live(`i:${ipKey(slot.ip)}`, now);
      if (v.size >= perVisitor) return 'visitor';
      if (i.size >= perIp) return 'ip';
      v.set(slot.id, now + SLOT_TTL_MS);
      i.set(slot.id, now + SLOT_TTL_MS);
      return 'ok';
    },
    async release(slot) {
      drop(`v:${slot.visitorId}`, slot.id);
      drop(`i:${ipKey(slot.ip)}`, slot.id);
    },
    async refresh(slots) {
      const expiry = Date.now() + SLOT_TTL_MS;
      for (const s of slots) {
        sets.get(`v:${s.visitorId}`)?.set(s.id, expiry);
        sets.get(`i:${ipKey(s.ip)}`)?.set(s.id, expiry);
      }
    },
  };
}

function redisSocketCap(redis: RedisClientType, prefix: string, perVisitor: number, perIp: number, onError: (err: unknown) => void): SocketCap {
  const keys = (s: SocketSlot) => [`${prefix}:sockets:v:${s.visitorId}`, `${prefix}:sockets:i:${ipKey(s.ip)}`];
  // While Redis is unreachable this node counts alone (like the limiters' insurance): a cap that
  // fails open per node, never a widget that cannot connect.
  const insurance = memorySocketCap(perVisitor, perIp);
  const inRedis = new Set<string>();
  return {
    async acquire(slot) {
      const now = Date.now();
      try {
        const r = await redis.eval(ACQUIRE, {
          keys: keys(slot),
          arguments: [String(now), String(now + SLOT_TTL_MS), slot.id, String(perVisitor), String(perIp), String(SLOT_TTL_MS)],
        });
        if (r === 0) inRedis.add(slot.id);
        return r === 1 ? 'visitor' : r === 2 ? 'ip' : 'ok';
      } catch (err) {
        onError(err);
        return insurance.acquire(slot);
      }
    },
    async release(slot) {
      if (!inRedis.delete(slot.id)) return insurance.release(slot);
      const [v, i] = keys(slot) as [string, string];
      try {
        await redis.multi().zRem(v, slot.id).zRem(i, slot.id).exec();
      } catch (err) {
        onError(err); // the slot expires by itself
      }
    },
    async refresh(slots) {
      const mine = slots.filter((s) => inRedis.has(s.id));
      await insurance.refresh(slots.filter((s) => !inRedis.has(s.id)));
      if (mine.length === 0) return;
      const score = Date.now() + SLOT_TTL_MS;
      const m = redis.multi();
      for (const s of mine) {
        for (const key of keys(s)) {
          m.zAdd(key, { score, value: s.id }, { condition: 'XX' });
          m.pExpire(key, SLOT_TTL_MS);
        }
      }
      try {
        await m.exec();
      } catch (err) {
        onError(err);
      }
    },
  };
}

/** What a widget call is counted against. */
export interface WidgetCaller {
  ip: string;
  /** The visitor behind the call, by its token's hash (one token per visitor): known before any database read. */
  visitorKey?: string | undefined;
  /** The widget key an anonymous call names (new visitor, load events). */
  widgetKey?: string | undefined;
}

export interface WidgetLimits {
  /** Counts one call against its IP; first, before any database read. */
  ip(ip: string): Promise<void>;
  /**
   * Counts one call against its visitor (calls with a visitor token) or, for anonymous calls, its
   * widget key. A visitor's calls never count against the key: the key's ceiling never refuses
   * visitors already chatting.
   */
  caller(who: WidgetCaller): Promise<void>;
  /** Counts one new visitor against its IP's hourly budget. */
  newVisitor(ip: string): Promise<void>;
  sockets: SocketCap;
}

export function createWidgetLimits(
  config: WidgetLimitsConfig,
  prefix: string,
  redis: RedisClientType | undefined,
  onError: (err: unknown) => void = () => {},
): WidgetLimits {
  const limiter = (name: string, points: number, seconds: number) => createLimiter(name, points, seconds, redis, { prefix, message: TOO_MANY_REQUESTS });
  const perIp = limiter('widget-ip', config.perIp, 60);
  const perVisitor = limiter('widget-visitor', config.perVisitor, 60);
  const perKey = limiter('widget-key', config.perKey, 60);
  const newVisitors = limiter('widget-new-visitor-ip', config.newVisitorsPerIp, 3600);
  return {
    ip: (ip) => perIp.consume(ipKey(ip)),
    async caller({ visitorKey, widgetKey }) {
      if (visitorKey) await perVisitor.consume(visitorKey);
      else if (widgetKey) await perKey.consume(widgetKey);
    },
    newVisitor: (ip) => newVisitors.consume(ipKey(ip)),
    sockets: redis
      ? redisSocketCap(redis, prefix, config.socketsPerVisitor, config.socketsPerIp, onError)
      : memorySocketCap(config.socketsPerVisitor, config.socketsPerIp),
  };
}

/** A budget spent by weight (bytes, files) rather than by hits; see createWeightedLimiter. */
export interface WeightedLimiter {
  /**
   * Spends `weight` of key's budget, or throws 429 in the envelope with Retry-After (and spends
   * nothing) when that would go over it.
   */
  consume(key: string, weight: number): Promise<void>;
  /** Throws 429 with Retry-After when key's budget is already spent, without spending any. */
  check(key: string): Promise<void>;
}

/**
 * Like createLimiter, with a weight per consumption and the wait in Retry-After. Shared by every
 * node through Redis when it is given; `keyPrefix` lets tests keep their counters apart.
 */
export function createWeightedLimiter(
  keyPrefix: string,
  points: number,
  durationSeconds: number,
  redis: RedisClientType | undefined,
  message: string,
): WeightedLimiter {
  const opts = { keyPrefix, points, duration: durationSeconds };
  const limiter: RateLimiterAbstract = redis
    ? new RateLimiterRedis({ ...opts, storeClient: redis, useRedisPackage: true, insuranceLimiter: new RateLimiterMemory(opts) })
    : new RateLimiterMemory(opts);
  const refused = (res: RateLimiterRes) => new HttpError(429, message, undefined, secondsUntil(res));
  return {
    async consume(key, weight) {
      try {
        await limiter.consume(key, weight);
      } catch (e) {
        if (!(e instanceof RateLimiterRes)) throw e;
        // A refused consumption still counted: give it back, so only what was accepted is spent.
        await limiter.reward(key, weight).catch(() => {});
        throw refused(e);
      }
    },
    async check(key) {
      const res = await limiter.get(key);
      if (res && res.consumedPoints >= points) throw refused(res);
    },
  };
}
