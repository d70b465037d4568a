import { randomUUID } from 'node:crypto';
import { asc, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Tx } from '../db/client.js';
import { pushOutbox } from '../db/schema.js';

/** This process's id in push_outbox rows and in its Redis connection's name. */
export const NODE_ID = randomUUID();

export interface PushRelaySettings {
  /** How often the table is looked at. */
  pollMs: number;
  /** A row of a node that is gone, this old (the database's clock), is pushed by this node. */
  afterMs: number;
  /** A row still there this old is pushed whatever its node (a node cut off, or a lost push). */
  anywayMs: number;
  /** A row older than this is dropped unpushed: its clients have caught up from their cursor since. */
  staleMs: number;
  /** A node deletes the rows it pushed together, this often (one statement per period, whatever the rate). */
  deleteEveryMs: number;
}

export const PUSH_RELAY_SETTINGS: PushRelaySettings = { pollMs: 200, afterMs: 300, anywayMs: 5000, staleMs: 30_000, deleteEveryMs: 100 };

/** Rows looked at per pass. */
const BATCH = 500;

const ids = sql.placeholder('ids');
const ms = (name: string) => sql`${sql.placeholder(name)}::int * interval '1 millisecond'`;

/** The statements of the hot path, prepared once per database (named: PostgreSQL plans them once per connection). */
function statements(db: Db) {
  return {
    /** This node's pushed rows, one statement per period (one array parameter, whatever the count). */
    deletePushed: db
      .delete(pushOutbox)
      .where(sql`${pushOutbox.messageId} = any(${ids}::bigint[])`)
      .prepare('parley_push_outbox_done'),
    /**
     * Rows old enough to be another node's concern, oldest first. The young rows (the pushes in
     * flight, deleted by their node within `deleteEveryMs`) are filtered out in the database: in the
     * common case the answer is empty.
     */
    due: db
      .select({
        id: pushOutbox.messageId,
        node: pushOutbox.node,
        overdue: sql<boolean>`${pushOutbox.createdAt} < now() - ${ms('anyway')}`,
      })
      .from(pushOutbox)
      .where(sql`${pushOutbox.createdAt} < now() - ${ms('after')}`)
      .orderBy(asc(pushOutbox.messageId))
      .limit(BATCH)
      .prepare('parley_push_outbox_due'),
  };
}

/**
 * Instant failover of message pushes (issue 15). Each chat message is stored with a
 * `push_outbox` row naming the node that stored it (commands/sendMessage.ts, same statement).
 * That node pushes it at once and then deletes the row (`pushed`, batched: one
 * `DELETE ... WHERE message_id = ANY($1)` per node per `deleteEveryMs`, whatever the rate).
 * Every node looks at the table every `pollMs` for rows older than `afterMs` (created_at, the
 * database's clock: no clock skew between nodes), so the common case reads nothing. Such a row
 * whose node is gone (`liveNodes`: the nodes whose named Redis connection is open; a killed
 * process's connections close at once) belongs to a node that died between the commit and the
 * push: it is locked (FOR UPDATE SKIP LOCKED, so one node takes it), pushed and deleted in one
 * transaction. A live but slow node's rows are left to it (no double push under load) unless
 * they are `anywayMs` old. At least once: a node killed after its push but before its delete is
 * pushed twice; clients merge by id.
 */
export class PushRelay {
  /** Pushed by this node, not yet deleted. */
  private done: number[] = [];
  /** Being deleted now (still this node's: never relayed by it). */
  private deletingIds: number[] = [];
  private deleting: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private sql: ReturnType<typeof statements>;
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
  ) {
    this.sql = statements(db);
  }

  start(): void {
    this.schedule();
  }

  /**
   * This node pushed the message: its row goes, with the others pushed within the next
   * `deleteEveryMs` (one DELETE per node and period, whatever the message rate).
   */
  pushed(messageId: number): void {
    this.done.push(messageId);
    this.deleting ??= new Promise<void>((r) => setTimeout(r, this.settings.deleteEveryMs).unref()).then(() => this.flush());
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.deleting;
  }

  private async flush(): Promise<void> {
    this.deletingIds = this.done;
    this.done = [];
    try {
      if (this.deletingIds.length > 0) await this.sql.deletePushed.execute({ ids: this.deletingIds });
    } catch (err) {
      // Left in the table: another node pushes them again after `anywayMs`; clients drop doubles by id.
      this.log.warn({ err, n: this.deletingIds.length }, 'push outbox: could not delete pushed rows');
    }
    this.deletingIds = [];
    this.deleting = undefined;
    const more = this.done.pop();
    if (more !== undefined) this.pushed(more);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass()
        .then(() => undefined)
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

  /** One look at the table; the ids pushed (tests). */
  async pass(): Promise<number[]> {
    const rows = await this.sql.due.execute({ after: this.settings.afterMs, anyway: this.settings.anywayMs });
    if (rows.length === 0) return [];
    const mine = new Set([...this.done, ...this.deletingIds]);
    const due: number[] = [];
    const ifGone: { id: number; node: string }[] = [];
    for (const { id, node, overdue } of rows) {
      if (mine.has(id)) continue;
      if (overdue) due.push(id);
      else if (node !== NODE_ID) ifGone.push({ id, node });
    }
    if (ifGone.length > 0) {
      const live = await this.liveNodes();
      if (live) for (const r of ifGone) if (!live.has(r.node)) due.push(r.id);
    }
    if (due.length === 0 || this.stopped) return [];
    due.sort((a, b) => a - b);
    return this.db.transaction(async (tx) => {
      const claimed = await tx
        .select({ id: pushOutbox.messageId, stale: sql<boolean>`${pushOutbox.createdAt} < now() - ${this.settings.staleMs}::int * interval '1 millisecond'` })
        .from(pushOutbox)
        .where(sql`${pushOutbox.messageId} = any(${sql.param(due)}::bigint[])`)
        .orderBy(asc(pushOutbox.messageId))
        .for('update', { skipLocked: true });
      if (claimed.length === 0) return [];
      const fresh = claimed.filter((r) => !r.stale).map((r) => r.id);
      const pushed = fresh.length > 0 ? await this.push(tx, fresh) : 0;
      await tx.delete(pushOutbox).where(sql`${pushOutbox.messageId} = any(${sql.param(claimed.map((r) => r.id))}::bigint[])`);
      this.relayed += pushed;
      this.onRelayed?.(pushed);
      this.log.warn({ pushed, dropped: claimed.length - fresh.length }, 'push outbox: pushed messages another node stored but did not push');
      return fresh;
    });
  }
}
