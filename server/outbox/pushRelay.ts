import { randomUUID } from 'node:crypto';
import { asc, inArray } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Tx } from '../db/client.js';
import { pushOutbox } from '../db/schema.js';

/** This process's id in push_outbox rows and in its Redis connection's name. */
export const NODE_ID = randomUUID();

export interface PushRelaySettings {
  /** How often the table is looked at. */
  pollMs: number;
  /** A row of a node that is gone, seen this long by this node, is pushed by this node. */
  afterMs: number;
  /** A row still there this long after this node first saw it is pushed whatever its node (a node cut off, or a lost push). */
  anywayMs: number;
  /** A row older than this is dropped unpushed: its clients have caught up from their cursor since. */
  staleMs: number;
}

export const PUSH_RELAY_SETTINGS: PushRelaySettings = { pollMs: 200, afterMs: 300, anywayMs: 5000, staleMs: 30_000 };

/** Rows looked at per pass. */
const BATCH = 500;
/** Pushed rows are deleted together this often: well within `afterMs`, so a live node's rows are never relayed. */
const DELETE_EVERY_MS = 100;

/**
 * Instant failover of message pushes (issue 15). Each chat message is stored with a
 * `push_outbox` row naming the node that stored it (commands/sendMessage.ts, same statement).
 * That node pushes it and then deletes the row (`pushed`, batched: one DELETE per node per
 * 100 ms, whatever the rate). Every node looks at the table every `pollMs`. A row seen for
 * `afterMs` (counted from when it became visible, i.e. committed) whose node is gone (`liveNodes`:
 * the nodes whose named Redis connection is open; a killed process's connections close at once)
 * belongs to a node that died between the commit and the push: it is locked (FOR UPDATE SKIP
 * LOCKED, so one node takes it), pushed and deleted in one transaction. A live but slow node's
 * rows are left to it (no double push under load) unless they stay `anywayMs`. At least once: a
 * node killed after its push but before its delete is pushed twice; clients merge by id.
 */
export class PushRelay {
  /** Rows seen in the table: message id -> when this node first saw it. */
  private seen = new Map<number, number>();
  /** Pushed by this node, not yet deleted. */
  private done: number[] = [];
  private deleting: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Rows this process pushed for another node. */
  relayed = 0;

  constructor(
    private db: Db,
    private log: FastifyBaseLogger,
    /** Pushes these messages (in id order) inside the claiming transaction; returns how many were pushed. */
    private push: (tx: Tx, messageIds: number[]) => Promise<number>,
    /** The ids of the nodes alive now (undefined: cannot tell now). */
    private liveNodes: () => Promise<Set<string> | undefined>,
    private settings: PushRelaySettings = PUSH_RELAY_SETTINGS,
    /** Told how many messages each relay pass pushed (metrics). */
    private onRelayed?: (n: number) => void,
  ) {}

  start(): void {
    this.schedule();
  }

  /**
   * This node pushed the message: its row goes, with the others pushed within the next
   * `DELETE_EVERY_MS` (one DELETE per node and period, whatever the message rate).
   */
  pushed(messageId: number): void {
    this.done.push(messageId);
    this.deleting ??= new Promise<void>((r) => setTimeout(r, DELETE_EVERY_MS).unref()).then(() => this.flush());
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.deleting;
  }

  private async flush(): Promise<void> {
    const ids = this.done.splice(0);
    try {
      if (ids.length > 0) await this.db.delete(pushOutbox).where(inArray(pushOutbox.messageId, ids));
    } catch (err) {
      // Left in the table: another node pushes them again; clients drop doubles by id.
      this.log.warn({ err, n: ids.length }, 'push outbox: could not delete pushed rows');
    }
    this.deleting = undefined;
    const more = this.done.pop();
    if (more !== undefined) this.pushed(more);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass()
        .catch((err) => {
          if (!this.stopped) this.log.warn({ err }, 'push outbox relay pass failed');
        })
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, this.settings.pollMs);
    this.timer.unref();
  }

  private async pass(): Promise<void> {
    const rows = await this.db
      .select({ id: pushOutbox.messageId, node: pushOutbox.node })
      .from(pushOutbox)
      .orderBy(asc(pushOutbox.messageId))
      .limit(BATCH);
    const now = Date.now();
    const present = new Set(rows.map((r) => r.id));
    for (const id of this.seen.keys()) if (!present.has(id)) this.seen.delete(id);
    const mine = new Set(this.done);
    const due: number[] = [];
    const ifGone: { id: number; node: string }[] = [];
    for (const { id, node } of rows) {
      const first = this.seen.get(id);
      if (first === undefined) {
        this.seen.set(id, now);
        continue;
      }
      if (mine.has(id)) continue;
      if (now - first >= this.settings.anywayMs) due.push(id);
      else if (now - first >= this.settings.afterMs && node !== NODE_ID) ifGone.push({ id, node });
    }
    if (ifGone.length > 0) {
      const live = await this.liveNodes();
      if (live) for (const r of ifGone) if (!live.has(r.node)) due.push(r.id);
    }
    if (due.length === 0 || this.stopped) return;
    await this.db.transaction(async (tx) => {
      const claimed = await tx
        .select({ id: pushOutbox.messageId, createdAt: pushOutbox.createdAt })
        .from(pushOutbox)
        .where(inArray(pushOutbox.messageId, due))
        .orderBy(asc(pushOutbox.messageId))
        .for('update', { skipLocked: true });
      if (claimed.length === 0) return;
      const staleBefore = Date.now() - this.settings.staleMs;
      const fresh = claimed.filter((r) => r.createdAt.getTime() >= staleBefore).map((r) => r.id);
      const pushed = fresh.length > 0 ? await this.push(tx, fresh) : 0;
      await tx.delete(pushOutbox).where(
        inArray(
          pushOutbox.messageId,
          claimed.map((r) => r.id),
        ),
      );
      this.relayed += pushed;
      this.onRelayed?.(pushed);
      this.log.warn({ pushed, dropped: claimed.length - fresh.length }, 'push outbox: pushed messages another node stored but did not push');
    });
    for (const id of due) this.seen.delete(id);
  }
}
