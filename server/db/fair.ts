import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Fair access to the database between tenants (issue 11: "one tenant's flood never slows
 * another"). Every database call runs for someone: the account of the request, socket event or
 * job that makes it, or (before the account is known) the caller's widget key or IP. That "lane"
 * travels with the async context (AsyncLocalStorage); the database client (db/client.ts) asks a
 * FairQueue for a connection in that lane. Lanes are served round-robin, one call each, so an
 * account with a thousand queued writes delays another account's read by at most one call per
 * other waiting lane, not by the whole queue.
 */

/** The mutable context of one request, socket event or job: which lane its database calls use. */
export interface DbContext {
  lane: string;
}

const contexts = new AsyncLocalStorage<DbContext>();

/** Calls without a context (start-up, timers of the server itself) share this lane. */
export const SYSTEM_LANE = 'system';

export const laneOfAccount = (accountId: string): string => `account:${accountId}`;

/** Runs `fn` in a new context whose database calls use `lane`. */
export function runInLane<T>(lane: string, fn: () => T): T {
  return contexts.run({ lane }, fn);
}

/** Runs `fn` with the database calls of `accountId`'s lane. */
export function runForAccount<T>(accountId: string, fn: () => T): T {
  return runInLane(laneOfAccount(accountId), fn);
}

/**
 * The current context learned who it works for: its next database calls use that account's lane
 * (no-op outside a context).
 */
export function setLaneAccount(accountId: string): void {
  const ctx = contexts.getStore();
  if (ctx) ctx.lane = laneOfAccount(accountId);
}

/** The lane of the current context (SYSTEM_LANE outside any). */
export function currentLane(): string {
  return contexts.getStore()?.lane ?? SYSTEM_LANE;
}

type Grant = (release: () => void) => void;

/** Half-life of a lane's recorded use of the slots: what it held a second ago counts half. */
export const USE_HALF_LIFE_MS = 1000;
/** Lanes whose recent use differs by less than this (ms) count as equal and take turns. */
const USE_TIE_MS = 1;
/**
 * A lane that was idle is counted as having used the slots at least as much as the lane served
 * last, less this head start (ms): enough to go right after the call in progress, not enough to
 * bank its idle time. Otherwise a tenant whose lane was idle (use decayed to nothing) would be
 * served before a busy console's lane until it had caught up with that console's recent use: a
 * flood's first 200 ms held another tenant's console calls back by 300 ms (bench/abuse).
 */
const JOIN_HEAD_START_MS = 5;

/**
 * A counting semaphore whose waiters are served fairly over lanes, by the time each lane held
 * the slots lately: each time a slot frees up, the waiting lane that used the least slot time
 * recently (decayed with USE_HALF_LIFE_MS) gets it for its oldest waiter; lanes whose use differs
 * by less than USE_TIE_MS take turns round-robin, and a lane that had nothing waiting
 * joins at the back of that rotation. A lane that was idle does not bank its idle time: it
 * counts as having used at least what the lane served last has, less JOIN_HEAD_START_MS. So a
 * tenant whose calls are short (a console's reads) is served next, right after the calls in
 * progress, even while another tenant keeps a queue of long writes; two busy tenants share the
 * slots by time, not by number of calls; and a new caller never waits for more than one call per
 * other waiting lane (a heavy lane's use decays while it waits).
 */
export class FairQueue {
  private free: number;
  /** Waiting lanes in rotation order (Map keeps insertion order), each with its FIFO of waiters. */
  private readonly lanes = new Map<string, Grant[]>();
  /** Each lane's recent slot time (ms, decayed from `at`). */
  private readonly use = new Map<string, { ms: number; at: number }>();
  private waiting = 0;
  /** The lane served last: its recent use is where the scheduler is (in use terms). */
  private lastLane: string | undefined;
  /** Turns given so far (calls served), all lanes together. */
  granted = 0;

  private dispatchScheduled = false;

  /**
   * `yieldBetweenTurns`: hand a freed slot to the next waiter on a later turn of the event loop
   * (setImmediate), not at once. For a database that answers without I/O (PGlite runs in this
   * thread): otherwise its queued calls run back to back as one chain of microtasks, and no
   * socket, no other request, is served until the whole queue is done.
   */
  constructor(
    readonly slots: number,
    private readonly opts: { yieldBetweenTurns?: boolean } = {},
  ) {
    if (!Number.isInteger(slots) || slots < 1) throw new Error('FairQueue needs at least one slot');
    this.free = slots;
  }

  /** Callers waiting for a slot, all lanes together. */
  get pending(): number {
    return this.waiting;
  }

  /**
   * Resolves with a release function once the lane's turn comes (at once when a slot is free and
   * nobody waits). With `timeoutMs`, a waiter still waiting then leaves the queue and rejects
   * with `timeoutError()`.
   */
  acquire(lane: string = currentLane(), timeoutMs?: number, timeoutError: () => Error = () => new Error('timed out waiting for the database')): Promise<() => void> {
    if (!this.lanes.has(lane)) this.catchUp(lane);
    if (this.free > 0 && this.waiting === 0) {
      this.free--;
      this.granted++;
      this.lastLane = lane;
      return Promise.resolve(this.releaser(lane));
    }
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const grant: Grant = (release) => {
        clearTimeout(timer);
        resolve(release);
      };
      const queue = this.lanes.get(lane);
      if (queue) queue.push(grant);
      else this.lanes.set(lane, [grant]);
      this.waiting++;
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          const waiters = this.lanes.get(lane);
          const at = waiters?.indexOf(grant) ?? -1;
          if (!waiters || at < 0) return; // granted meanwhile
          waiters.splice(at, 1);
          if (waiters.length === 0) this.lanes.delete(lane);
          this.waiting--;
          reject(timeoutError());
        }, timeoutMs);
      }
    });
  }

  /** Runs `fn` holding one slot of the current lane. */
  async run<T>(fn: () => Promise<T>, lane: string = currentLane()): Promise<T> {
    const release = await this.acquire(lane);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** A lane that is not waiting is counted as having used at least what the lane served last has, less JOIN_HEAD_START_MS. */
  private catchUp(lane: string, now = performance.now()): void {
    if (this.lastLane === undefined || this.lastLane === lane) return;
    const floor = this.useOf(this.lastLane, now) - JOIN_HEAD_START_MS;
    if (floor > 0 && this.useOf(lane, now) < floor) this.use.set(lane, { ms: floor, at: now });
  }

  /** `lane`'s recent slot time at `now` (ms). */
  useOf(lane: string, now = performance.now()): number {
    const u = this.use.get(lane);
    return u ? u.ms * 2 ** (-(now - u.at) / USE_HALF_LIFE_MS) : 0;
  }

  private charge(lane: string, ms: number, now: number): void {
    this.use.set(lane, { ms: this.useOf(lane, now) + ms, at: now });
    if (this.use.size > 10_000) {
      // Lanes idle for a while count as new (their use decayed to nothing).
      for (const [k] of this.use) if (this.useOf(k, now) < 0.01 && !this.lanes.has(k)) this.use.delete(k);
    }
  }

  private releaser(lane: string): () => void {
    let released = false;
    const started = performance.now();
    return () => {
      if (released) return;
      released = true;
      const now = performance.now();
      this.charge(lane, now - started, now);
      this.free++;
      if (!this.opts.yieldBetweenTurns) return this.dispatch();
      if (this.dispatchScheduled || this.waiting === 0) return;
      this.dispatchScheduled = true;
      setImmediate(() => {
        this.dispatchScheduled = false;
        this.dispatch();
      });
    };
  }

  private dispatch(): void {
    while (this.free > 0 && this.waiting > 0) {
      // The waiting lane with the least recent use; the first in rotation order among equals.
      const now = performance.now();
      let lane: string | undefined;
      let queue: Grant[] | undefined;
      let least = Number.POSITIVE_INFINITY;
      for (const [l, q] of this.lanes) {
        const used = this.useOf(l, now);
        if (used < least - USE_TIE_MS) {
          least = used;
          lane = l;
          queue = q;
        }
      }
      if (lane === undefined || queue === undefined) return;
      const grant = queue.shift() as Grant;
      this.lanes.delete(lane);
      if (queue.length > 0) this.lanes.set(lane, queue); // to the back of the rotation
      this.waiting--;
      this.free--;
      this.granted++;
      this.lastLane = lane;
      grant(this.releaser(lane));
    }
  }
}

/**
 * Paces one kind of call per lane on this node (a token bucket per lane: `burst` at once, then
 * `perSecond`): a call over the pace waits its turn instead of taking the CPU at once, so a
 * tenant that calls in a tight loop gets `perSecond` calls a second and the node's CPU stays
 * with the other tenants. The CPU is each node's own, so the pace is too (no Redis). A call that
 * would wait longer than `maxWaitMs` is refused with `refuse(seconds until a turn)`, and waits
 * nothing.
 */
export class LanePacer {
  private readonly lanes = new Map<string, { tokens: number; at: number }>();
  private sweepAt = 0;

  constructor(
    readonly burst: number,
    readonly perSecond: number,
    private readonly maxWaitMs: number,
    private readonly refuse: (retryAfterSeconds: number) => Error,
  ) {
    if (!(burst >= 1 && perSecond > 0)) throw new Error('LanePacer needs a burst of at least 1 and a positive rate');
  }

  /** Resolves when the lane may make its call (at once while it is within its pace). */
  async wait(lane: string = currentLane()): Promise<void> {
    const now = Date.now();
    if (now >= this.sweepAt) {
      // A lane whose bucket refilled is the same as a new one.
      for (const [k, b] of this.lanes) if (b.tokens + ((now - b.at) * this.perSecond) / 1000 >= this.burst) this.lanes.delete(k);
      this.sweepAt = now + 10_000;
    }
    const b = this.lanes.get(lane);
    const tokens = b ? Math.min(this.burst, b.tokens + ((now - b.at) * this.perSecond) / 1000) : this.burst;
    // Tokens may go below zero: each waiting call holds its future token, so waiters keep their order.
    const waitMs = tokens >= 1 ? 0 : Math.ceil(((1 - tokens) * 1000) / this.perSecond);
    if (waitMs > this.maxWaitMs) throw this.refuse(Math.max(1, Math.ceil(waitMs / 1000)));
    this.lanes.set(lane, { tokens: tokens - 1, at: now });
    if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
  }
}

/** A lane's calls in progress, its waiters in order, and its credit of busy time (LaneSlots). */
interface Lane {
  busy: number;
  queue: (() => void)[];
  /** Rest (ms) the lane is still let off (LaneSlots' burst), as of `at` (performance.now()). */
  credit: number;
  at: number;
}

/**
 * At most `slots` calls of one lane in progress on this node at once, each slot busy at most
 * `share` of the time: a tenant's share of the node's work (issue 11: a flood of one account's
 * accepted widget writes queues behind its own lane while other accounts' calls go on). A slot
 * held for d ms rests d * (1 - share) / share ms before its next call (share 0.5: as long as it
 * was held), so a lane whose calls keep coming holds each slot at most `share` of the time, and
 * the node's thread (and PGlite, which runs in it) is free for the other tenants the rest of it.
 * A lane is let off up to `burstMs` of those rests, earned back at `share` of the time passed:
 * a few calls now and then (a visitor's load report, creation and first message; a handful of
 * visitors at once) never rest, while calls that keep coming, one after another or many at once,
 * rest once the burst is spent (then a lane holds a slot about share * (1 + share) of the time).
 * An idle lane is forgotten once it has earned its whole burst back.
 * A call waits for a slot of its lane at most `maxWaitMs`, then is refused with `refuse(seconds)`
 * and leaves the queue. The work is each node's own, so the slots are too (no Redis).
 */
/** LaneSlots sweeps its idle lanes when it holds this many. */
const SWEEP_AT = 10_000;

export class LaneSlots {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    readonly slots: number,
    private readonly maxWaitMs: number,
    private readonly refuse: (retryAfterSeconds: number) => Error,
    readonly share = 1,
    private readonly burstMs = 0,
  ) {
    if (!Number.isInteger(slots) || slots < 1) throw new Error('LaneSlots needs at least one slot');
    if (!(share > 0 && share <= 1)) throw new Error('LaneSlots needs a share in (0, 1]');
    if (!(burstMs >= 0)) throw new Error('LaneSlots needs a burst of at least 0 ms');
  }

  /** Calls of `lane` in progress and waiting. */
  load(lane: string): { busy: number; waiting: number } {
    const l = this.lanes.get(lane);
    return { busy: l?.busy ?? 0, waiting: l?.queue.length ?? 0 };
  }

  /** Resolves with a release function once the lane has a slot for the call. */
  async enter(lane: string): Promise<() => void> {
    let l = this.lanes.get(lane);
    const now = performance.now();
    if (!l) {
      if (this.lanes.size >= SWEEP_AT) this.sweep();
      this.lanes.set(lane, (l = { busy: 0, queue: [], credit: this.burstMs, at: now }));
    }
    const entry = l;
    this.earn(entry, now);
    if (entry.busy < this.slots && entry.queue.length === 0) {
      entry.busy++;
      return this.releaser(lane, entry);
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      entry.queue.push(grant);
      const timer = setTimeout(() => {
        const at = entry.queue.indexOf(grant);
        if (at < 0) return; // granted meanwhile
        entry.queue.splice(at, 1);
        this.forgetIfIdle(lane, entry);
        reject(this.refuse(Math.max(1, Math.ceil(this.maxWaitMs / 1000))));
      }, this.maxWaitMs);
    });
    return this.releaser(lane, entry);
  }

  private releaser(lane: string, entry: Lane): () => void {
    let released = false;
    const started = performance.now();
    return () => {
      if (released) return;
      released = true;
      const now = performance.now();
      const owed = ((now - started) * (1 - this.share)) / this.share;
      this.earn(entry, now);
      const forgiven = Math.min(entry.credit, owed);
      entry.credit -= forgiven;
      const restMs = owed - forgiven;
      if (restMs >= 1) setTimeout(() => this.handOn(lane, entry), restMs).unref();
      else this.handOn(lane, entry);
    };
  }

  /** A slot is free: it goes to the next waiter, or back to the lane. */
  private handOn(lane: string, entry: Lane): void {
    const next = entry.queue.shift();
    if (next) next();
    else {
      entry.busy--;
      this.forgetIfIdle(lane, entry);
    }
  }

  private forgetIfIdle(lane: string, entry: Lane): void {
    if (entry.busy !== 0 || entry.queue.length !== 0 || this.lanes.get(lane) !== entry) return;
    this.earn(entry, performance.now());
    if (entry.credit >= this.burstMs) this.lanes.delete(lane);
  }

  /** The burst the lane earned back since it was last counted. */
  private earn(entry: Lane, now: number): void {
    entry.credit = Math.min(this.burstMs, entry.credit + (now - entry.at) * this.share);
    entry.at = now;
  }

  /** Forgets the idle lanes that have earned their burst back (lanes idle with part of it spent stay until then). */
  private sweep(): void {
    for (const [lane, entry] of this.lanes) this.forgetIfIdle(lane, entry);
  }
}
