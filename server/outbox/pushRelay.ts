import { asc, inArray } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Tx } from '../db/client.js';
import { pushOutbox } from '../db/schema.js';

export interface PushRelaySettings {
  /** How often the table is looked at. */
  pollMs: number;
  /** A row still there this long after this node first saw it is pushed by this node. */
  afterMs: number;
  /** A row older than this is dropped unpushed: its clients have caught up from their cursor since. */
  staleMs: number;
}

export const PUSH_RELAY_SETTINGS: PushRelaySettings = { pollMs: 200, afterMs: 500, staleMs: 30_000 };

/** Rows looked at per pass. */
const BATCH = 500;

/**
 * Instant failover of message pushes (issue 15). Each chat message is stored with a
 * `push_outbox` row (commands/sendMessage.ts, same statement). The node that stored it pushes
 * it and then deletes the row (`pushed`, batched: one DELETE per database round trip, whatever
 * the rate). Every node looks at the table every `pollMs`; a row it has seen for `afterMs`
 * (counted from when it became visible, i.e. committed, not from its insert) belongs to a node
 * that died between the commit and the push: it is locked (FOR UPDATE SKIP LOCKED, so one node
 * takes it), pushed and deleted in one transaction. At least once: a storing node too slow to
 * delete its row within `afterMs` is pushed twice; clients merge messages by id.
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
    private settings: PushRelaySettings = PUSH_RELAY_SETTINGS,
  ) {}

  start(): void {
    this.schedule();
  }

  /** This node pushed the message: its row goes (batched with the others pushed meanwhile). */
  pushed(messageId: number): void {
    this.done.push(messageId);
    this.deleting ??= new Promise<void>((r) => setImmediate(r)).then(() => this.flush());
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.deleting;
  }

  private async flush(): Promise<void> {
    while (this.done.length > 0) {
      const ids = this.done.splice(0);
      try {
        await this.db.delete(pushOutbox).where(inArray(pushOutbox.messageId, ids));
      } catch (err) {
        // Left in the table: another pass (or node) pushes them again; clients drop doubles by id.
        this.log.warn({ err, n: ids.length }, 'push outbox: could not delete pushed rows');
      }
    }
    this.deleting = undefined;
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
    const rows = await this.db.select({ id: pushOutbox.messageId }).from(pushOutbox).orderBy(asc(pushOutbox.messageId)).limit(BATCH);
    const now = Date.now();
    const present = new Set(rows.map((r) => r.id));
    for (const id of this.seen.keys()) if (!present.has(id)) this.seen.delete(id);
    const mine = new Set(this.done);
    const due: number[] = [];
    for (const { id } of rows) {
      const first = this.seen.get(id);
      if (first === undefined) this.seen.set(id, now);
      else if (now - first >= this.settings.afterMs && !mine.has(id)) due.push(id);
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
      this.log.warn({ pushed, dropped: claimed.length - fresh.length }, 'push outbox: pushed messages another node stored but did not push');
    });
    for (const id of due) this.seen.delete(id);
  }
}
