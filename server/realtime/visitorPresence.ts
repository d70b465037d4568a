import { randomUUID } from 'node:crypto';
import type { Server } from 'socket.io';
import type { RedisClientType } from 'redis';
import { NODE_ID } from '../outbox/pushRelay.js';
import { type TtlCache, ttlCache } from '../services/ttlCache.js';
import { rooms, visitorAudience } from './audience.js';

/**
 * Which visitors have the widget open: a live widget socket on any node. The one answer to the
 * question for the visitor lists, the dashboard, the offline-reply job and the widget's offline
 * push (the console's side is services/presence.ts).
 */

type Io = Pick<Server, 'in'>;

/** A cluster-wide socket lookup per list page would be costly: answers are kept this long. */
const ONLINE_CACHE_MS = 2_000;
const caches = new WeakMap<Io, TtlCache<string, Set<string>>>();

/** A widget socket's visitor; `visitor.id`: a node of the release before (a rolling restart mixes both). */
const visitorIdOf = (data: unknown) => {
  const d = data as { visitorId?: string; visitor?: { id?: string } } | undefined;
  return d?.visitorId ?? d?.visitor?.id;
};

/** The account's visitors with a widget socket (a little stale at most; best effort: an unanswered node counts as none). */
export function onlineVisitorIds(io: Io, accountId: string): Promise<Set<string>> {
  let cache = caches.get(io);
  if (!cache) caches.set(io, (cache = ttlCache(ONLINE_CACHE_MS)));
  return cache.get(accountId, async () => {
    const sockets = await io
      .in(rooms.widgets(accountId))
      .fetchSockets()
      .catch(() => []);
    return new Set(sockets.map((s) => visitorIdOf(s.data)).filter((id): id is string => !!id));
  });
}

/** What decides who hears about a visitor: its conversation's account and assignee (null: no conversation yet). */
export type VisitorConversation = { accountId: string; assigneeId: number | null } | null;

/**
 * An account with widget sockets on this node: its id and its widgets room as one string each,
 * shared by all its sockets (a database row's id is a new string per row: 10,000 sockets of one
 * account would otherwise keep 10,000 copies of each).
 */
export interface LocalAccount {
  readonly id: string;
  /** rooms.widgets(id) */
  readonly widgets: string;
  sockets: number;
}

interface LocalVisitor {
  /** This node's widget sockets of the visitor. */
  sockets: number;
  account: LocalAccount;
  /** undefined: not known now (a Redis outage may have lost a change): read again when needed. */
  conversation: VisitorConversation | undefined;
  /** The presence write of its first socket here, while it is under way. */
  written: Promise<void> | undefined;
}

/** A visitor's presence key lives this long after its last socket came on a node (a node killed keeps no key forever). */
const PRESENCE_TTL_S = 24 * 60 * 60;

/**
 * This node's widget sockets by visitor, with their conversation's audience kept beside them
 * (issue 15): a widget's typing, seen and presence events go to the consoles that may see the
 * conversation without reading it again. The audience is read once on connect (with the
 * visitor), and kept current by the pushes that change it (realtime/fanout.ts: every node hears
 * a message's and an assignment's push and updates its own visitors).
 *
 * Presence across nodes is a counter, not a cluster-wide socket lookup: a Redis hash per visitor
 * holds one field per node that has a socket of the visitor (written when the node's first
 * socket of the visitor comes, removed with its last). A visitor is online while any field
 * names a live node. Without Redis this node's count is the answer.
 */
export class VisitorSockets {
  private local = new Map<string, LocalVisitor>();
  private accounts = new Map<string, LocalAccount>();
  /** This registry's field in the visitors' hashes: its node (process) id, then its own (tests run two apps in one process). */
  readonly field = `${NODE_ID}/${randomUUID()}`;

  constructor(
    private readonly redis: RedisClientType | undefined,
    private readonly prefix: string,
    /** The nodes alive now (undefined: cannot tell); asked only when another node's field is found. */
    private readonly liveNodes: () => Promise<Set<string> | undefined>,
  ) {}

  private key(visitorId: string): string {
    return `${this.prefix}:vp:${visitorId}`;
  }

  /**
   * A widget socket of the visitor came on this node, with its conversation as read on connect:
   * its account as this node keeps it (the strings the socket should keep). The presence write
   * (Redis) goes on in the background; the visitor's disconnect waits for it.
   */
  connected(visitorId: string, accountId: string, conversation: VisitorConversation): LocalAccount {
    let account = this.accounts.get(accountId);
    if (!account) this.accounts.set(accountId, (account = { id: accountId, widgets: rooms.widgets(accountId), sockets: 0 }));
    account.sockets++;
    const known = this.local.get(visitorId);
    if (known) {
      known.sockets++;
      known.conversation = conversation;
      return account;
    }
    const visitor: LocalVisitor = { sockets: 1, account, conversation, written: undefined };
    this.local.set(visitorId, visitor);
    if (!this.redis?.isReady) return account;
    const key = this.key(visitorId);
    // One round trip (node-redis pipelines commands issued together).
    const written: Promise<void> = Promise.all([this.redis.hSet(key, this.field, '1'), this.redis.expire(key, PRESENCE_TTL_S)])
      .catch(() => {})
      .then(() => {
        if (visitor.written === written) visitor.written = undefined;
      });
    visitor.written = written;
    return account;
  }

  /**
   * A widget socket of the visitor left this node: whether the visitor is still online (another
   * socket here, or on a live node). Never rejects: with Redis away, this node's count decides.
   */
  async disconnected(visitorId: string): Promise<boolean> {
    const known = this.local.get(visitorId);
    if (!known) return false;
    await known.written; // its presence was written before it is removed
    if (this.local.get(visitorId) !== known) return false; // the node closed meanwhile
    if (--known.account.sockets === 0) this.accounts.delete(known.account.id);
    if (--known.sockets > 0) return true;
    this.local.delete(visitorId);
    if (!this.redis?.isReady) return false;
    const key = this.key(visitorId);
    try {
      const [, fields] = await Promise.all([this.redis.hDel(key, this.field), this.redis.hKeys(key)]);
      return await this.anyLive(key, fields);
    } catch {
      return false;
    }
  }

  /** Whether the visitor has a widget socket on any node. Rejects when Redis cannot be asked. */
  async online(visitorId: string): Promise<boolean> {
    if (this.local.has(visitorId)) return true;
    if (!this.redis) return false;
    const key = this.key(visitorId);
    return this.anyLive(key, await this.redis.hKeys(key));
  }

  /** Other registries' fields count while their node lives; a dead node's field is removed. */
  private async anyLive(key: string, fields: string[]): Promise<boolean> {
    const others = fields.filter((f) => f !== this.field);
    if (others.length === 0) return false; // this registry's own field is not a socket: its count said none
    const live = await this.liveNodes();
    if (!live) return true; // cannot tell: believe the key
    const dead = others.filter((f) => !live.has(f.split('/')[0]!));
    if (dead.length > 0) await this.redis?.hDel(key, dead).catch(() => {});
    return dead.length < others.length;
  }

  /** Redis came back: this node's visitors are written again (a field written while it was away was lost). */
  async rewrite(): Promise<void> {
    if (!this.redis?.isReady) return;
    const writes: Promise<unknown>[] = [];
    for (const visitorId of this.local.keys()) {
      const key = this.key(visitorId);
      writes.push(this.redis.hSet(key, this.field, '1'), this.redis.expire(key, PRESENCE_TTL_S));
    }
    await Promise.all(writes).catch(() => {});
  }

  /** The node is closing: its fields go (its sockets are being closed; nobody is told, as before). */
  async close(): Promise<void> {
    const visitors = [...this.local.keys()];
    this.local.clear();
    this.accounts.clear();
    if (!this.redis?.isReady) return;
    await Promise.all(visitors.map((v) => this.redis!.hDel(this.key(v), this.field))).catch(() => {});
  }

  /** The console rooms that hear about the visitor; undefined when this node does not know (read it then). */
  audience(visitorId: string): string[] | undefined {
    const known = this.local.get(visitorId);
    if (!known || known.conversation === undefined) return undefined;
    return visitorAudience(known.account.id, known.conversation ?? undefined);
  }

  /** The visitor's conversation as a push says it is now (no-op for visitors without a socket here). */
  setConversation(visitorId: string, conversation: VisitorConversation): void {
    const known = this.local.get(visitorId);
    if (known) known.conversation = conversation;
  }

  /** Changes may have been lost (Redis came back): every audience is read again on its next use. */
  forgetConversations(): void {
    for (const v of this.local.values()) v.conversation = undefined;
  }

  /** This node's count of widget sockets of the visitor (tests). */
  localSockets(visitorId: string): number {
    return this.local.get(visitorId)?.sockets ?? 0;
  }
}

const registries = new WeakMap<Io, VisitorSockets>();

/** The real-time layer registers its node's registry for its Socket.IO server. */
export function useVisitorSockets(io: Io, registry: VisitorSockets): void {
  registries.set(io, registry);
}

/** The node's registry of widget sockets (realtime/plugin.ts made it). */
export function visitorSockets(io: Io): VisitorSockets {
  const registry = registries.get(io);
  if (!registry) throw new Error('the real-time layer is not registered');
  return registry;
}

/** Whether this visitor has the widget open right now (any node; uncached: a tab just closed counts). Rejects when Redis cannot be asked. */
export async function isVisitorOnline(io: Io, visitorId: string): Promise<boolean> {
  const registry = registries.get(io);
  if (registry) return registry.online(visitorId);
  return (await io.in(rooms.visitor(visitorId)).fetchSockets()).length > 0;
}
