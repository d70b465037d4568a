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
  /**
   * The visitor, by its token's hash (one token per visitor, like its rate limits): known before
   * any database read, so an over-cap handshake is refused without one.
   */
  visitorKey: string;
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
      const v = live(`v:${slot.visitorKey}`, now);
      const i = live(`i:${ipKey(slot.ip)}`, now);
      if (v.size >= perVisitor) return 'visitor';
      if (i.size >= perIp) return 'ip';
      v.set(slot.id, now + SLOT_TTL_MS);
      i.set(slot.id, now + SLOT_TTL_MS);
      return 'ok';
    },
    async release(slot) {
      drop(`v:${slot.visitorKey}`, slot.id);
      drop(`i:${ipKey(slot.ip)}`, slot.id);
    },
    async refresh(slots) {
      const expiry = Date.now() + SLOT_TTL_MS;
      for (const s of slots) {
        sets.get(`v:${s.visitorKey}`)?.set(s.id, expiry);
        sets.get(`i:${ipKey(s.ip)}`)?.set(s.id, expiry);
      }
    },
  };
}

function redisSocketCap(redis: RedisClientType, prefix: string, perVisitor: number, perIp: number, onError: (err: unknown) => void): SocketCap {
  const keys = (s: SocketSlot) => [`${prefix}:sockets:t:${s.visitorKey}`, `${prefix}:sockets:i:${ipKey(s.ip)}`];
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
  /**
   * Counts one call of a visitor (by its token's hash) against its IP and itself at once: both
   * budgets have a point left, or neither is spent. Usually answered from this node's leases.
   */
  visitorCall(ip: string, visitorKey: string): Promise<void>;
  /** Counts one new visitor against its IP's hourly budget. */
  newVisitor(ip: string): Promise<void>;
  /**
   * Counts one new chat of the account (a visitor's first message or offline form, when it has no
   * conversation yet): a pace a real business never reaches and a flood of anonymous chats does.
   * Never asked for a visitor already chatting.
   */
  newChat(accountId: string): Promise<void>;
  /**
   * Without any I/O: the refusal a call would get at once because this node already knows one of
   * its budgets is spent (its IP's; with `visitorKey`, its visitor's; else with `widgetKey`, the
   * key's; with `newVisitor`, its IP's new visitors), in the order the hooks spend them; undefined when it may go on (it is then
   * counted as usual). A call refused after its IP's budget spends an IP point, as through the
   * hooks (from this node's lease; undefined when none is at hand). plugins/refusalGate.ts
   * answers these before routing.
   */
  knownRefusal(who: { ip: string; visitorKey?: string | undefined; widgetKey?: string | undefined; newVisitor?: boolean }): KnownRefusal | undefined;
  /**
   * Without any I/O: counts one call of a visitor against its IP and itself from this node's
   * leases when both have a point at hand (true), else spends nothing (false: the call goes the
   * usual way, `ip` then `caller`). A poll answered before Fastify (routes/widget/widget.ts).
   */
  visitorCallLocally(ip: string, visitorKey: string): boolean;
  sockets: SocketCap;
}

/** A refusal known without a round trip: which limit, and when a call may be tried again. */
export interface KnownRefusal {
  limit: string;
  retryAfterSeconds: number;
}

// ---- leased budgets ------------------------------------------------------------------------

/**
 * `points` per fixed window of `seconds` for each key; a key's window starts with its first point.
 * `burst`: besides, a token bucket of that many points per key, refilled at `burst` a second, so a
 * window's budget cannot be spent in one instant (without it a flood spends a minute's budget in
 * its first second, and the server's CPU goes to it then).
 */
interface Budget {
  name: string;
  points: number;
  seconds: number;
  burst?: number | undefined;
  /** The bucket's refill period (`burst` tokens per this many ms); BURST_REFILL_MS (a second) by default. */
  burstRefillMs?: number | undefined;
}

/** One key's share of a take: its counter, its budget, and at most how many points to lease. */
interface Want {
  counter: string;
  /** A fixed window of `points` per `windowMs`, or a token bucket of `points` refilled every `windowMs`. */
  kind: 'window' | 'bucket';
  points: number;
  windowMs: number;
  lease: number;
}

/** Points taken for each key with how long the node may hold them, or the first key with none left (and when one frees up). */
type Taken = { granted: { points: number; ttlMs: number }[] } | { refused: number; ttlMs: number };

/** Where budgets are counted: Redis for every node, or this process alone. */
interface BudgetStore {
  take(wants: readonly Want[]): Promise<Taken>;
}

/** The most points a node leases at once, and the share of what is left it may lease. */
export const LEASE_MAX = 20;
export const LEASE_SHARE = 16;
/** A burst bucket's lease: a quarter of the tokens in it (1 when fewer than 8), held at most BURST_LEASE_MS. */
export const BURST_SHARE = 4;
export const BURST_LEASE_MS = 60_000;
/** The burst bucket's refill period: `burst` tokens a second. */
export const BURST_REFILL_MS = 1000;
/** How many points a lease asks for when `left` remain: a small share, 1 near the end. */
const leaseSize = (left: number, max: number, share = LEASE_SHARE) => Math.max(1, Math.min(max, Math.floor(left / share)));

// KEYS: counters. ARGV: per key (points, window ms, lease max, kind 'w' or 'b'). All keys have a
// point left or none is touched; each then gives up to its lease size. A window counter's window
// starts now if it is new. A bucket is a hash {t = tokens, at = ms of the last take}, refilled at
// points per window ms up to points (Redis's clock: the nodes' clocks do not matter).
// Answers {granted1, ttl1, granted2, ttl2, ...} or {-i, ms} for the first key i that is spent.
const TAKE = `
local share, bshare, bhold = ${LEASE_SHARE}, ${BURST_SHARE}, ${BURST_LEASE_MS}
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local used, ttl, tokens = {}, {}, {}
for i = 1, #KEYS do
  local points, ms = tonumber(ARGV[4 * i - 3]), tonumber(ARGV[4 * i - 2])
  if ARGV[4 * i] == 'b' then
    local h = redis.call('HMGET', KEYS[i], 't', 'at')
    tokens[i] = points
    if h[1] then tokens[i] = math.min(points, tonumber(h[1]) + (now - tonumber(h[2])) * points / ms) end
    if tokens[i] < 1 then return {-i, math.ceil((1 - tokens[i]) * ms / points)} end
  else
    used[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
    ttl[i] = redis.call('PTTL', KEYS[i])
    if ttl[i] < 0 then
      ttl[i] = ms
      if used[i] > 0 then redis.call('PEXPIRE', KEYS[i], ttl[i]) end
    end
    if used[i] >= points then return {-i, ttl[i]} end
  end
end
local out = {}
for i = 1, #KEYS do
  local points, ms, max = tonumber(ARGV[4 * i - 3]), tonumber(ARGV[4 * i - 2]), tonumber(ARGV[4 * i - 1])
  if ARGV[4 * i] == 'b' then
    local have = math.floor(tokens[i])
    local n = math.min(have, math.max(1, math.min(max, math.floor(have / bshare))))
    redis.call('HSET', KEYS[i], 't', tostring(tokens[i] - n), 'at', tostring(now))
    redis.call('PEXPIRE', KEYS[i], ms + 1000)
    out[2 * i - 1] = n
    out[2 * i] = bhold
  else
    local left = points - used[i]
    local n = math.min(left, math.max(1, math.min(max, math.floor(left / share))))
    if redis.call('INCRBY', KEYS[i], n) == n then redis.call('PEXPIRE', KEYS[i], ttl[i]) end
    out[2 * i - 1] = n
    out[2 * i] = ttl[i]
  end
end
return out`;

/** A store in this process; also the insurance of the Redis store while Redis is unreachable. */
function memoryBudgetStore(): BudgetStore {
  const counters = new Map<string, { used: number; resetAt: number }>();
  const buckets = new Map<string, { tokens: number; at: number; until: number }>();
  let sweepAt = 0;
  return {
    async take(wants) {
      const now = Date.now();
      if (now >= sweepAt) {
        for (const [k, c] of counters) if (c.resetAt <= now) counters.delete(k);
        for (const [k, b] of buckets) if (b.until <= now) buckets.delete(k);
        sweepAt = now + 10_000;
      }
      // Each key's state now: a window counter, or a bucket's tokens after its refill.
      const states = wants.map((w) => {
        if (w.kind === 'bucket') {
          const b = buckets.get(w.counter);
          const tokens = b ? Math.min(w.points, b.tokens + ((now - b.at) * w.points) / w.windowMs) : w.points;
          return { left: tokens, wait: Math.ceil(((1 - tokens) * w.windowMs) / w.points) };
        }
        let c = counters.get(w.counter);
        if (!c || c.resetAt <= now) counters.set(w.counter, (c = { used: 0, resetAt: now + w.windowMs }));
        return { left: w.points - c.used, wait: c.resetAt - now, counter: c };
      });
      const spent = states.findIndex((s) => s.left < 1);
      if (spent >= 0) return { refused: spent, ttlMs: (states[spent] as { wait: number }).wait };
      return {
        granted: wants.map((w, i) => {
          const s = states[i] as (typeof states)[number];
          if (w.kind === 'bucket') {
            const have = Math.floor(s.left);
            const n = Math.min(have, leaseSize(have, w.lease, BURST_SHARE));
            buckets.set(w.counter, { tokens: s.left - n, at: now, until: now + w.windowMs + 1000 });
            return { points: n, ttlMs: BURST_LEASE_MS };
          }
          const n = Math.min(s.left, leaseSize(s.left, w.lease));
          (s.counter as { used: number }).used += n;
          return { points: n, ttlMs: s.wait };
        }),
      };
    },
  };
}

function redisBudgetStore(redis: RedisClientType, onError: (err: unknown) => void): BudgetStore {
  const insurance = memoryBudgetStore();
  return {
    async take(wants) {
      let r: number[];
      try {
        r = (await redis.eval(TAKE, {
          keys: wants.map((w) => w.counter),
          arguments: wants.flatMap((w) => [String(w.points), String(w.windowMs), String(w.lease), w.kind === 'bucket' ? 'b' : 'w']),
        })) as number[];
      } catch (err) {
        // Redis unreachable: this node counts alone until it is back (a limit that fails open per node).
        onError(err);
        return insurance.take(wants);
      }
      if ((r[0] as number) < 0) return { refused: -(r[0] as number) - 1, ttlMs: r[1] as number };
      return { granted: wants.map((_, i) => ({ points: r[2 * i] as number, ttlMs: r[2 * i + 1] as number })) };
    },
  };
}

/**
 * Rate-limit budgets shared by every node, spent from leases. A node takes a few points of a key
 * at once from the shared counter (one Redis round trip, atomically for every key of a call: an
 * IP and its visitor) and spends them locally until they run out or the key's window ends, so
 * most calls cost no round trip. Leased points are counted in Redis when taken, so the nodes
 * together never admit more than a budget in its window. The price is the other way: points a
 * node leased and did not spend are lost to the other nodes, so a key whose calls move between
 * nodes may be refused up to (lease - 1) calls early per other node holding a lease. A lease is
 * a 16th of what is left, at most LEASE_MAX (20), 1 once fewer than 32 remain: budgets of under
 * 32 points are counted one by one, exactly. A key found spent is refused from memory until its
 * window ends: a flood costs no round trip either.
 *
 * A budget with a burst has a second counter per key, a token bucket leased the same way (in the
 * same round trip): a quarter of the tokens left, 1 when fewer than 8, held by the node for at
 * most BURST_LEASE_MS. A call needs a point of both; a call refused by either spends neither. The
 * nodes together admit at most `burst` at once plus `burst` a second, plus what each other node
 * holds of a lease (at most a quarter of `burst`). An empty bucket is refused from memory until
 * its next token, so a flood costs at most a few round trips a second per key and node.
 */
function leasedBudgets(store: BudgetStore, prefix: string, message: string) {
  const leases = new Map<string, { left: number; until: number }>();
  const refills = new Map<string, Promise<void>>();
  let sweepAt = 0;
  // The refused budget's name goes with the 429 (the rate-limit refusals metric counts by it).
  const refused = (ms: number, limit: string) =>
    Object.assign(new HttpError(429, message, undefined, Math.max(1, Math.ceil(ms / 1000))), { limit });

  async function refill(wants: Want[]): Promise<void> {
    const taken = await store.take(wants);
    const now = Date.now();
    if ('refused' in taken) {
      // Only the spent key is known to be spent; the others are asked again by the next call.
      leases.set((wants[taken.refused] as Want).counter, { left: 0, until: now + taken.ttlMs });
      return;
    }
    for (const [i, w] of wants.entries()) {
      const g = taken.granted[i] as { points: number; ttlMs: number };
      const held = leases.get(w.counter);
      // Points of another lease still held (same window) add up.
      const left = held && held.until > now ? held.left + g.points : g.points;
      leases.set(w.counter, { left, until: now + g.ttlMs });
    }
  }

  /** The counters a call spends from: each budget's window, and its burst bucket when it has one. */
  const countersOf = (asks: readonly { budget: Budget; key: string }[]) =>
    asks.flatMap(({ budget, key }) => {
      const window = {
        limit: budget.name,
        want: { counter: `${prefix}:${budget.name}:${key}`, kind: 'window', points: budget.points, windowMs: budget.seconds * 1000, lease: LEASE_MAX } as Want,
      };
      if (!budget.burst) return [window];
      const bucket = {
        limit: `${budget.name}-burst`,
        want: { counter: `${prefix}:${budget.name}:burst:${key}`, kind: 'bucket', points: budget.burst, windowMs: budget.burstRefillMs ?? BURST_REFILL_MS, lease: LEASE_MAX } as Want,
      };
      return [window, bucket];
    });

  /** The first of these budgets this node knows is spent now (a lease of 0 points), if any. */
  function knownSpent(asks: readonly { budget: Budget; key: string }[]): KnownRefusal | undefined {
    const now = Date.now();
    for (const { limit, want } of countersOf(asks)) {
      const lease = leases.get(want.counter);
      if (lease && lease.left === 0 && lease.until > now) return { limit, retryAfterSeconds: Math.max(1, Math.ceil((lease.until - now) / 1000)) };
    }
    return undefined;
  }

  /**
   * Spends one point of each budget from this node's leases, without I/O, when every one of them
   * has a point left here; false (nothing spent) otherwise.
   */
  function spendLocally(asks: readonly { budget: Budget; key: string }[]): boolean {
    const now = Date.now();
    const counters = countersOf(asks);
    for (const { want } of counters) {
      const lease = leases.get(want.counter);
      if (!lease || lease.until <= now || lease.left < 1) return false;
    }
    for (const { want } of counters) {
      const lease = leases.get(want.counter) as { left: number };
      if (--lease.left === 0) leases.delete(want.counter);
    }
    return true;
  }

  async function spend(asks: readonly { budget: Budget; key: string }[]): Promise<void> {
    const counters = countersOf(asks);
    for (;;) {
      const now = Date.now();
      if (now >= sweepAt) {
        for (const [k, l] of leases) if (l.until <= now) leases.delete(k);
        sweepAt = now + 10_000;
      }
      const waits: Promise<void>[] = [];
      const missing: Want[] = [];
      for (const { limit, want } of counters) {
        const lease = leases.get(want.counter);
        if (lease && lease.until > now) {
          if (lease.left === 0) throw refused(lease.until - now, limit);
          continue;
        }
        const pending = refills.get(want.counter);
        if (pending) waits.push(pending);
        else missing.push(want);
      }
      if (waits.length === 0 && missing.length === 0) {
        for (const { want } of counters) {
          // A used-up lease goes: the next call takes another (left: 0 marks a spent key).
          const lease = leases.get(want.counter) as { left: number };
          if (--lease.left === 0) leases.delete(want.counter);
        }
        return;
      }
      if (missing.length > 0) {
        const p = refill(missing).finally(() => {
          for (const w of missing) if (refills.get(w.counter) === p) refills.delete(w.counter);
        });
        for (const w of missing) refills.set(w.counter, p);
        waits.push(p);
      }
      // Then look again: the points may have gone to concurrent calls, or the key may be spent.
      await Promise.all(waits);
    }
  }

  return { spend, knownSpent, spendLocally };
}

/**
 * The default burst of a budget of `points`, whatever its window: a twelfth of it, so at the burst
 * rate the budget takes 12 s to spend (a minute's, or an hour's), and never fewer than `floor` at
 * once (a page load's few calls together, a NAT's visitors arriving together).
 */
export const defaultBurst = (points: number, floor: number): number => Math.max(floor, Math.ceil(points / 12));

/** New chats of one account per minute, and at once (config WIDGET_NEW_CHATS_PER_ACCOUNT, WIDGET_NEW_CHATS_BURST). */
export const DEFAULT_NEW_CHATS_PER_MINUTE = 120;
export const DEFAULT_NEW_CHATS_BURST = 30;

export function createWidgetLimits(
  config: WidgetLimitsConfig,
  prefix: string,
  redis: RedisClientType | undefined,
  onError: (err: unknown) => void = () => {},
): WidgetLimits {
  const { spend, knownSpent, spendLocally } = leasedBudgets(redis ? redisBudgetStore(redis, onError) : memoryBudgetStore(), prefix, TOO_MANY_REQUESTS);
  const burst = config.burst ?? {};
  const perIp: Budget = { name: 'widget-ip', points: config.perIp, seconds: 60, burst: burst.perIp ?? defaultBurst(config.perIp, 50) };
  const perVisitor: Budget = { name: 'widget-visitor', points: config.perVisitor, seconds: 60, burst: burst.perVisitor ?? defaultBurst(config.perVisitor, 10) };
  const perKey: Budget = { name: 'widget-key', points: config.perKey, seconds: 60, burst: burst.perKey ?? defaultBurst(config.perKey, 100) };
  const newVisitors: Budget = {
    name: 'widget-new-visitor-ip',
    points: config.newVisitorsPerIp,
    seconds: 3600,
    burst: burst.newVisitorsPerIp ?? defaultBurst(config.newVisitorsPerIp, 5),
  };
  // New chats: `burst` at once, the bucket refilled at the minute's own rate (120 a minute: 2 a second).
  const newChatsPerMinute = config.newChatsPerAccount ?? DEFAULT_NEW_CHATS_PER_MINUTE;
  const newChatsBurst = Math.min(newChatsPerMinute, burst.newChatsPerAccount ?? DEFAULT_NEW_CHATS_BURST);
  const newChats: Budget = {
    name: 'widget-new-chats',
    points: newChatsPerMinute,
    seconds: 60,
    burst: newChatsBurst,
    burstRefillMs: Math.max(1, Math.round((newChatsBurst * 60_000) / newChatsPerMinute)),
  };
  return {
    ip: (ip) => spend([{ budget: perIp, key: ipKey(ip) }]),
    async caller({ visitorKey, widgetKey }) {
      if (visitorKey) await spend([{ budget: perVisitor, key: visitorKey }]);
      else if (widgetKey) await spend([{ budget: perKey, key: widgetKey }]);
    },
    visitorCall: (ip, visitorKey) =>
      spend([
        { budget: perIp, key: ipKey(ip) },
        { budget: perVisitor, key: visitorKey },
      ]),
    newVisitor: (ip) => spend([{ budget: newVisitors, key: ipKey(ip) }]),
    newChat: (accountId) => spend([{ budget: newChats, key: accountId }]),
    knownRefusal({ ip, visitorKey, widgetKey, newVisitor }) {
      const key = ipKey(ip);
      const ipRefused = knownSpent([{ budget: perIp, key }]);
      if (ipRefused) return ipRefused;
      const byKey = !visitorKey && widgetKey ? knownSpent([{ budget: perKey, key: widgetKey }]) : undefined;
      const later = (visitorKey ? knownSpent([{ budget: perVisitor, key: visitorKey }]) : byKey) ?? (newVisitor ? knownSpent([{ budget: newVisitors, key }]) : undefined);
      // Through the hooks such a call spends a point of its IP before it is refused: so here, from
      // this node's lease; without a point at hand the hooks count and refuse it as usual. A spent
      // widget key is refused all the same (its flood comes from many addresses, each new to this
      // node): such a call then costs its address no point.
      if (!later) return undefined;
      if (spendLocally([{ budget: perIp, key }])) return later;
      return later === byKey ? later : undefined;
    },
    visitorCallLocally: (ip, visitorKey) =>
      spendLocally([
        { budget: perIp, key: ipKey(ip) },
        { budget: perVisitor, key: visitorKey },
      ]),
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
