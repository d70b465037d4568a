/**
 * Group commit (issue 15: the real-time path's cost). Writes that arrive while earlier ones are
 * in flight wait, and go together as one statement (one round trip, one transaction, one WAL
 * flush) as soon as a slot frees up (one batch at a time by default: the more wait, the more
 * share a commit; a batch stalled past `stallMs`, on a row lock say, gives its slot up so the
 * node's other messages go on); a write that finds a slot free goes at the next turn of
 * the event loop with whatever arrived in the same turn. So a lone write waits for nothing, and
 * under load each commit carries many writes: the commit's WAL flush, the biggest single cost
 * of a message, is paid once per batch.
 *
 * Each caller's promise settles after its batch's statement returned (committed): nothing is
 * acknowledged before it is durable, and a batch that fails is tried again write by write, so
 * one bad write fails alone. Writes with the same key (one visitor's conversation) never share
 * a batch nor run at once: the statement writes each row once, and a key's writes commit in the
 * order they came.
 */
export interface GroupCommitOptions {
  /** Batches running at once: later writes queue behind them (and batch up). */
  maxInFlight: number;
  /** Writes per statement at most. */
  maxBatch: number;
  /**
   * A batch running this long no longer holds its slot (a statement waiting on a row lock must
   * not hold every message of the node): the next batch starts beside it.
   */
  stallMs: number;
  /** Batches running at once, the stalled ones included, at most. */
  maxRunning: number;
}

export const GROUP_COMMIT_OPTIONS: GroupCommitOptions = { maxInFlight: 1, maxBatch: 100, stallMs: 20, maxRunning: 4 };

interface Waiting<I, O> {
  key: string;
  item: I;
  resolve: (out: O) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit<I, O> {
  private queue: Waiting<I, O>[] = [];
  /** Batches running and not stalled (they hold a slot). */
  private inFlight = 0;
  /** Batches running, stalled or not. */
  private running = 0;
  /** Keys of the writes in flight: a key's next write waits for its last one's commit. */
  private busy = new Set<string>();
  private scheduled = false;
  /** Sizes of the batches run so far (tests, diagnostics). */
  readonly batchSizes: number[] = [];

  constructor(
    /** Writes `items` in one statement; returns one result per item, in order. */
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly options: GroupCommitOptions = GROUP_COMMIT_OPTIONS,
  ) {}

  /** Resolves with the write's result once its batch committed. */
  submit(key: string, item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ key, item, resolve, reject });
      this.kick();
    });
  }

  private hasSlot(): boolean {
    return this.inFlight < this.options.maxInFlight && this.running < this.options.maxRunning;
  }

  private kick(): void {
    if (this.scheduled || !this.hasSlot() || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (!this.hasSlot()) return;
    const batch: Waiting<I, O>[] = [];
    const keys = new Set<string>();
    const rest: Waiting<I, O>[] = [];
    for (const w of this.queue) {
      if (batch.length < this.options.maxBatch && !keys.has(w.key) && !this.busy.has(w.key)) {
        keys.add(w.key);
        batch.push(w);
      } else {
        rest.push(w);
      }
    }
    this.queue = rest;
    if (batch.length === 0) return;
    this.inFlight++;
    this.running++;
    for (const key of keys) this.busy.add(key);
    if (this.batchSizes.length < 10_000) this.batchSizes.push(batch.length);
    let stalled = false;
    const stall = setTimeout(() => {
      stalled = true;
      this.inFlight--;
      this.kick();
    }, this.options.stallMs);
    stall.unref();
    void this.runBatch(batch).finally(() => {
      clearTimeout(stall);
      if (!stalled) this.inFlight--;
      this.running--;
      for (const key of keys) this.busy.delete(key);
      this.kick();
    });
    // Another slot may be free for what is left.
    this.kick();
  }

  private async runBatch(batch: Waiting<I, O>[]): Promise<void> {
    try {
      const outs = await this.run(batch.map((w) => w.item));
      for (const [i, w] of batch.entries()) w.resolve(outs[i] as O);
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      // One bad write must not fail the others: each alone (the failed statement committed nothing).
      await Promise.all(
        batch.map((w) =>
          this.run([w.item]).then(
            (outs) => w.resolve(outs[0] as O),
            (e: unknown) => w.reject(e),
          ),
        ),
      );
    }
  }
}
