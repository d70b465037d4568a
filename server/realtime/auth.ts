import proxyAddr from '@fastify/proxy-addr';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'socket.io';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { accounts, conversations, visitors } from '../db/schema.js';
import { actorForToken } from '../plugins/auth.js';
import { visitorForToken } from '../plugins/visitorAuth.js';
import type { Config } from '../config.js';
import { HttpError } from '../errors.js';
import type { Actor } from '../policies/actor.js';
import { TOO_MANY_CONNECTIONS, TOO_MANY_REQUESTS, ipKey, type SocketSlot } from '../services/rateLimit.js';
import type { VisitorRow } from '../presenters/visitor.js';
import { hashToken } from '../services/secrets.js';
import { type TtlCache, ttlCache } from '../services/ttlCache.js';
import { consoleRooms } from './audience.js';
import type { VisitorConversation } from './visitorPresence.js';

export type SocketData =
  | { kind: 'console'; actor: Actor }
  | {
      /**
       * What a widget socket keeps while it lives (issue 15: memory per idle socket): ids and
       * flags; its account's id is the node's one string per account (visitorPresence.ts).
       */
      kind: 'widget';
      visitorId: string;
      accountId: string;
      /** The visitor's token hash and the client's address: the socket's slot of the caps and its events' budgets. */
      visitorKey: string;
      ip: string;
      /**
       * The visitor's row: the handshake's until the socket's connect work is done, then none
       * while it is idle; the first event that needs it reads it and the socket keeps it.
       */
      visitor: VisitorRow | undefined;
      /** The visitor's conversation (its audience) as read with the visitor on connect, until the node's registry has it. */
      conversation: VisitorConversation | undefined;
      /** Its chat is under way: the plan's new-chat limit no longer applies to it. */
      chatting: boolean;
    };

/** A widget socket's slot of the socket caps (its id, visitor and address), made when asked: the socket keeps no object for it. */
export function widgetSlot(socket: Socket): SocketSlot {
  const data = socket.data as Extract<SocketData, { kind: 'widget' }>;
  return { id: socket.id, visitorKey: data.visitorKey, ip: data.ip };
}

/** Errors a client sees in connect_error; the same words as the HTTP envelope. */
const refuse = (message: string, status: number, retryAfter?: number) =>
  Object.assign(new Error(message), { data: retryAfter === undefined ? { status, message } : { status, message, retry_after: retryAfter } });

type Trust = (addr: string, hop: number) => boolean;
const trustFunctions = new Map<string, Trust>();

/** The client's address as Fastify's request.ip gives it (TRUST_PROXY decides whether X-Forwarded-For counts). */
export function clientIp(req: IncomingMessage, trustProxy: Config['trustProxy']): string {
  const id = JSON.stringify(trustProxy);
  let trust = trustFunctions.get(id);
  if (!trust) {
    trust =
      trustProxy === true
        ? () => true
        : trustProxy === false
          ? () => false
          : typeof trustProxy === 'number'
            ? (_addr: string, hop: number) => hop < trustProxy
            : proxyAddr.compile(trustProxy);
    trustFunctions.set(id, trust);
  }
  return proxyAddr(req, trust);
}

/** Refusals by the socket caps an address may get on a node within HANDSHAKE_GATE_MS before its next handshakes are refused before the upgrade. */
export const HANDSHAKE_REFUSALS_BEFORE_GATE = 20;
export const HANDSHAKE_GATE_MS = 10_000;

/** Socket handshakes of one address a node has upgraded and not yet answered, at most (SOCKET_HANDSHAKES_PER_IP). */
export const DEFAULT_HANDSHAKES_PER_IP = 16;
/** An upgraded handshake whose CONNECT never came (a client gone quiet) stops counting after this. */
export const HANDSHAKE_PENDING_MS = 10_000;

/**
 * Handshakes a node already knows the socket caps refuse (issue 11: a refused socket must cost
 * next to nothing). A handshake's visitor token is in Socket.IO's CONNECT packet, after the
 * WebSocket upgrade and engine.io's handshake, so the caps can only be asked then; but an address
 * whose handshakes the caps refused HANDSHAKE_REFUSALS_BEFORE_GATE times within HANDSHAKE_GATE_MS
 * is flooding (the widget retries a refused socket after 30 s, and polls meanwhile): its next
 * handshakes on this node are refused by engine.io's allowRequest, before the upgrade, until that
 * window ends. Per node, in memory, by address (IPv6 by /64, as the caps).
 */
export class HandshakeGate {
  private readonly byIp = new Map<string, { refused: number; until: number }>();
  private sweepAt = 0;
  /** By address: its handshakes upgraded and not yet answered, with when each was admitted. */
  private readonly pending = new Map<string, Map<IncomingMessage, number>>();
  /** A pending handshake's address key, and the listener that frees its place if its connection closes first. */
  private readonly pendingOf = new WeakMap<IncomingMessage, { key: string; onClose: () => void }>();

  /**
   * `pendingPerIp`: an address's handshakes upgraded and not yet answered on this node, at most.
   * The caps and budgets can only be asked once a handshake's CONNECT packet is in, a round trip
   * after its upgrade; two hundred tabs opened at once by one flooder were all upgraded (each
   * costs the node's thread a fraction of a millisecond, two hundred of them a tenth of a second)
   * before the first CONNECT told the node they were over the caps. With this bound the rest of
   * such a burst is refused before its upgrade, like an address the caps keep refusing.
   */
  constructor(private readonly pendingPerIp = DEFAULT_HANDSHAKES_PER_IP) {}

  /** Takes a pending place for `req` from `ip` (false: the address has none left on this node). */
  admit(req: IncomingMessage, ip: string): boolean {
    const key = ipKey(ip);
    const now = Date.now();
    const reqs = this.pending.get(key) ?? new Map<IncomingMessage, number>();
    for (const [r, at] of reqs) if (now - at >= HANDSHAKE_PENDING_MS) this.answered(r);
    if (reqs.size >= this.pendingPerIp) return false;
    reqs.set(req, now);
    this.pending.set(key, reqs);
    // However the handshake ends: answered below, or its connection gone first.
    const onClose = () => this.answered(req);
    this.pendingOf.set(req, { key, onClose });
    req.socket?.once('close', onClose);
    return true;
  }

  /** The handshake of `req` was answered (its socket is in, or refused): its pending place is free. */
  answered(req: IncomingMessage): void {
    const entry = this.pendingOf.get(req);
    if (entry === undefined) return;
    this.pendingOf.delete(req);
    // A kept-alive connection (a proxy's, polling) carries many handshakes: no listener stays behind.
    req.socket?.off('close', entry.onClose);
    const reqs = this.pending.get(entry.key);
    reqs?.delete(req);
    if (reqs?.size === 0) this.pending.delete(entry.key);
  }

  /** A handshake from `ip` was refused by a socket cap. */
  refused(ip: string): void {
    const now = Date.now();
    if (now >= this.sweepAt) {
      for (const [k, e] of this.byIp) if (e.until <= now) this.byIp.delete(k);
      this.sweepAt = now + HANDSHAKE_GATE_MS;
    }
    const key = ipKey(ip);
    let entry = this.byIp.get(key);
    if (!entry || entry.until <= now) this.byIp.set(key, (entry = { refused: 0, until: now + HANDSHAKE_GATE_MS }));
    entry.refused++;
  }

  /** Seconds until `ip`'s handshakes go on to the caps again, while this node refuses them before the upgrade. */
  blocked(ip: string): number | undefined {
    const entry = this.byIp.get(ipKey(ip));
    const now = Date.now();
    if (!entry || entry.until <= now || entry.refused < HANDSHAKE_REFUSALS_BEFORE_GATE) return undefined;
    return Math.max(1, Math.ceil((entry.until - now) / 1000));
  }
}

/**
 * engine.io's allowRequest (new handshakes only, polling or WebSocket, before any upgrade): the
 * refusal a handshake from this address would get anyway, known without I/O: its IP's widget
 * budget spent (the leased budgets), or the caps refusing its handshakes (HandshakeGate); or too
 * many of its handshakes upgraded and not answered yet (HandshakeGate.admit).
 * Console sockets come through here too (their token is in the CONNECT packet): from an address
 * in that state they are refused as well, and the console keeps up by polling.
 */
export function handshakeRefusal(app: FastifyInstance, gate: HandshakeGate, req: IncomingMessage): { message: string; ip: string } | undefined {
  try {
    const ip = clientIp(req, app.config.trustProxy);
    if (app.widgetLimits.knownRefusal({ ip })) return { message: TOO_MANY_REQUESTS, ip };
    if (gate.blocked(ip) !== undefined) return { message: TOO_MANY_CONNECTIONS, ip };
    if (!gate.admit(req, ip)) return { message: TOO_MANY_CONNECTIONS, ip };
  } catch {
    // anything unexpected: the handshake goes on to the usual checks
  }
  return undefined;
}

/** A rate limit's refusal as a handshake refusal, with its retry time. */
async function orRefuse(check: Promise<void>): Promise<void> {
  try {
    await check;
  } catch (e) {
    if (e instanceof HttpError) throw refuse(e.message, e.statusCode, e.retryAfterSeconds);
    throw e;
  }
}

/** What a widget socket's handshake keeps of its credentials once checked: nothing (one object for all). */
const NO_AUTH: Record<string, never> = Object.freeze({});

const text = (v: unknown, max = 512): string | undefined => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : undefined);

/** Browsers always send Origin on a WebSocket; a console socket must come from the console's own origin. */
function consoleOriginAllowed(app: FastifyInstance, socket: Socket): boolean {
  const origin = socket.handshake.headers.origin;
  if (!origin) return true; // not a browser: the token alone decides
  const host = socket.handshake.headers.host;
  if (host && (origin === `http://${host}` || origin === `https://${host}`)) return true;
  if (app.config.publicUrl && origin === app.config.publicUrl) return true;
  return app.config.consoleOrigins.includes(origin);
}

export async function authenticateSocket(app: FastifyInstance, socket: Socket, gate?: HandshakeGate): Promise<void> {
  const auth = (socket.handshake.auth ?? {}) as Record<string, unknown>;
  const token = text(auth.token);
  if (token) {
    if (!consoleOriginAllowed(app, socket)) throw refuse('Origin not allowed', 403);
    const actor = await actorForToken(app.db, token, app.config.sessions);
    if (!actor) throw refuse('Unauthenticated', 401);
    socket.data = { kind: 'console', actor } satisfies SocketData;
    await socket.join(consoleRooms(actor));
    return;
  }
  const widgetKey = text(auth.widget_key, 64);
  const visitorToken = text(auth.visitor_token);
  if (!widgetKey || !visitorToken) throw refuse('No authentication token found', 401);
  // A widget handshake is a widget call: it counts against its IP before any database read.
  const ip = clientIp(socket.request, app.config.trustProxy);
  await orRefuse(app.widgetLimits.ip(ip));
  // A few live sockets per visitor (by its token's hash) and per IP, on all nodes together; the
  // widget polls beyond them. Taken before any database read: an over-cap handshake costs none.
  const slot: SocketSlot = { id: socket.id, visitorKey: hashToken(visitorToken), ip };
  const taken = await app.widgetLimits.sockets.acquire(slot);
  if (taken !== 'ok') {
    gate?.refused(ip);
    throw refuse(TOO_MANY_CONNECTIONS, 429);
  }
  try {
    const found = await visitorWithConversation(app.db, visitorToken);
    if (!found) throw refuse('Unauthenticated', 401);
    const { visitor, conversation } = found;
    // A visitor token only ever reaches its own conversation, and only through its own widget.
    if ((await widgetKeyOf(app.db, visitor.accountId)) !== widgetKey) throw refuse('Unauthenticated', 401);
    // Rooms are joined on connection (realtime/widgetSocket.ts), with the node's strings of the account.
    socket.data = {
      kind: 'widget',
      visitorId: visitor.id,
      accountId: visitor.accountId,
      visitorKey: slot.visitorKey,
      // The handshake's own string when it is the same address (no proxy): one copy, not two.
      ip: ip === socket.handshake.address ? socket.handshake.address : ip,
      visitor,
      conversation,
      chatting: false,
    } satisfies SocketData;
    // The credentials are not kept with the socket once it is in (nor sent to other nodes by fetchSockets).
    socket.handshake.auth = NO_AUTH;
  } catch (e) {
    await app.widgetLimits.sockets.release(slot);
    throw e;
  }
}

/** An account's widget key never changes: each node keeps it a while (one query less per handshake). */
const widgetKeys = new WeakMap<Db, TtlCache<string, string | undefined>>();
function widgetKeyOf(db: Db, accountId: string): Promise<string | undefined> {
  let cache = widgetKeys.get(db);
  if (!cache) widgetKeys.set(db, (cache = ttlCache(60_000)));
  return cache.get(accountId, async (id) => {
    const [account] = await db.select({ key: accounts.widgetKey }).from(accounts).where(eq(accounts.id, id));
    return account?.key;
  });
}

/** The handshake's one statement, prepared once per database: the visitor of a token with its conversation's audience. */
const byToken = new WeakMap<Db, ReturnType<typeof prepareByToken>>();
function prepareByToken(db: Db) {
  return db
    .select({ visitor: visitors, accountId: conversations.accountId, assigneeId: conversations.assigneeId, conversationId: conversations.id })
    .from(visitors)
    .leftJoin(conversations, eq(conversations.visitorId, visitors.id))
    .where(eq(visitors.tokenHash, sql.placeholder('hash')))
    .limit(1)
    .prepare('parley_widget_handshake');
}

/**
 * A widget handshake's visitor and its conversation's audience in one statement (issue 15: the
 * socket keeps the audience, so its events and its disconnect read nothing). A token issued by
 * a reply email's link (visitor_tokens) takes the longer way.
 */
async function visitorWithConversation(db: Db, token: string): Promise<{ visitor: VisitorRow; conversation: VisitorConversation } | undefined> {
  let statement = byToken.get(db);
  if (!statement) byToken.set(db, (statement = prepareByToken(db)));
  const [row] = await statement.execute({ hash: hashToken(token) });
  if (row) return { visitor: row.visitor, conversation: row.conversationId === null ? null : { accountId: row.accountId!, assigneeId: row.assigneeId } };
  const visitor = await visitorForToken(db, token);
  if (!visitor) return undefined;
  const [c] = await db.select({ accountId: conversations.accountId, assigneeId: conversations.assigneeId }).from(conversations).where(eq(conversations.visitorId, visitor.id));
  return { visitor, conversation: c ?? null };
}
