/**
 * Issue 15: the widget's REST poll answered "nothing new" from memory.
 *
 * A poll (GET /api/widget/messages?cursor=C with the visitor's token) whose database check found
 * nothing new for C is remembered here, per token: the next polls of that token with the same C
 * are answered from this node's memory (304, or the same empty page) with no SQL, until
 * something the visitor may see is pushed to its room. Every push to a visitor's room goes
 * through a fan-out that every node delivers (realtime/fanout.ts deliverLocally: the storing
 * node's own, the others' through Redis, the push relay's for a dead node's messages), and each
 * delivery marks the visitor changed here: its remembered answers stop counting.
 *
 * Ordering: a change heard while a check is in flight (the check's snapshot may predate the
 * message's commit) keeps that check's answer out: `begin()` is taken before the check and an
 * answer is kept only when the visitor's last change is older. The change list is bounded: when
 * it is cleared, every answer begun before stops counting (the floor).
 *
 * What memory cannot hear: another process writing the database. Answers are remembered only on a
 * node that hears every writer's pushes (`hearsAll`): with Redis (PRODUCT.md section 9: many nodes
 * means DATABASE_URL + REDIS_URL), or on the embedded database (one process alone). A node on
 * PostgreSQL without Redis may share it with nodes it cannot hear: every poll is checked. While
 * the Redis subscription is down, other nodes' pushes are lost to this node, so nothing is
 * answered from memory (`pause`) and everything remembered is dropped when it comes back (`resume`). A token erased with its visitor (or a deleted account) is only
 * checked again when its answer expires (`ttlMs`): until then it hears "nothing new", never data.
 */
export interface QuietAnswer {
  visitorId: string;
  cursor: string;
  etag: string;
  /** The change sequence when the check that found nothing began. */
  seq: number;
  at: number;
}

export class QuietPolls {
  private seq = 0;
  private floor = 0;
  private paused = false;
  /** Whether this node hears every push of the deployment (set by the real-time layer). */
  hearsAll = false;
  private readonly changedAt = new Map<string, number>();
  private readonly answers = new Map<string, QuietAnswer>();

  constructor(
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 50_000,
  ) {}

  /** Before the database check: the sequence its answer is kept against. */
  begin(): number {
    return this.seq;
  }

  /** The check begun at `seq` found nothing new for this token's visitor since `cursor`. */
  keep(tokenHash: string, answer: Omit<QuietAnswer, 'at'>, now = Date.now()): void {
    if (!this.hearsAll || this.paused || !this.valid(answer)) return;
    if (this.answers.size >= this.maxEntries && !this.answers.has(tokenHash)) {
      // The oldest remembered token goes (a Map iterates in insertion order).
      this.answers.delete(this.answers.keys().next().value!);
    }
    this.answers.delete(tokenHash);
    this.answers.set(tokenHash, { ...answer, at: now });
  }

  /** The remembered "nothing new" of this token at this cursor, when nothing changed for its visitor since. */
  lookup(tokenHash: string, cursor: string, now = Date.now()): QuietAnswer | undefined {
    if (!this.hearsAll || this.paused) return undefined;
    const answer = this.answers.get(tokenHash);
    if (!answer || answer.cursor !== cursor) return undefined;
    if (now - answer.at >= this.ttlMs || !this.valid(answer)) {
      this.answers.delete(tokenHash);
      return undefined;
    }
    return answer;
  }

  /** Something the visitor may see was pushed to its room (any node's fan-out). */
  changed(visitorId: string): void {
    this.seq++;
    if (this.changedAt.size >= this.maxEntries) {
      this.changedAt.clear();
      this.floor = this.seq;
    }
    this.changedAt.set(visitorId, this.seq);
  }

  /** This node may miss other nodes' pushes from now on (its Redis subscription is down). */
  pause(): void {
    this.paused = true;
    this.answers.clear();
  }

  /** It hears them again: what was remembered before is dropped, answers are kept again. */
  resume(): void {
    this.paused = false;
    this.answers.clear();
    this.seq++;
    this.floor = this.seq;
  }

  private valid(answer: Pick<QuietAnswer, 'visitorId' | 'seq'>): boolean {
    return answer.seq >= this.floor && (this.changedAt.get(answer.visitorId) ?? 0) <= answer.seq;
  }
}

const perServer = new WeakMap<object, QuietPolls>();

/** The node's remembered polls, one per Socket.IO server (the fan-out delivers to it). */
export function quietPolls(io: object): QuietPolls {
  let polls = perServer.get(io);
  if (!polls) perServer.set(io, (polls = new QuietPolls()));
  return polls;
}
