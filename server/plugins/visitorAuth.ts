import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../db/client.js';
import { visitorTokens, visitors } from '../db/schema.js';
import { HttpError, unauthenticated } from '../errors.js';
import type { VisitorRow } from '../presenters/visitor.js';
import { hashToken } from '../services/secrets.js';
import { requestToken } from './auth.js';
import { requestAccount } from './dbLanes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The widget visitor behind `Authorization: Bearer <visitor_token>` (widget routes only). */
    visitor: VisitorRow;
    /** Whether that visitor had a conversation when its token was read (authenticateVisitor; unset on other paths). */
    visitorChatting?: boolean;
  }
}

/** The visitor behind a visitor token (HTTP bearer or socket handshake), if any. */
export async function visitorForToken(db: Db, token: string): Promise<VisitorRow | undefined> {
  return visitorForTokenHash(db, hashToken(token));
}

async function visitorForTokenHash(db: Db, tokenHash: string): Promise<VisitorRow | undefined> {
  return (await visitorAndChatForTokenHash(db, tokenHash))?.visitor;
}

/**
 * Whether the visitor has a conversation, read in the same statement as the visitor (names written
 * out: drizzle leaves a one-table select's columns unqualified, which the subquery would capture).
 */
const hasChat = sql<boolean>`exists (select 1 from "conversations" c where c."visitor_id" = "visitors"."id")`;

/** The visitor of a token hash and whether its chat is under way (it has a conversation), in one statement. */
async function visitorAndChatForTokenHash(db: Db, tokenHash: string): Promise<{ visitor: VisitorRow; chatting: boolean } | undefined> {
  const [own] = await db.select({ visitor: visitors, chatting: hasChat }).from(visitors).where(eq(visitors.tokenHash, tokenHash)).limit(1);
  if (own) return own;
  // A token issued by a reply email's link (services/visitorLinks.ts) on another browser.
  const [linked] = await db
    .select({ visitor: visitors, chatting: hasChat })
    .from(visitorTokens)
    .innerJoin(visitors, eq(visitors.id, visitorTokens.visitorId))
    .where(eq(visitorTokens.tokenHash, tokenHash))
    .limit(1);
  return linked;
}

/** onRequest hook for the widget's visitor calls: a visitor token reaches only that visitor's rows. */
export async function authenticateVisitor(request: FastifyRequest): Promise<void> {
  const token = requestToken(request.raw);
  if (!token) throw new HttpError(401, 'No authentication token found');
  const found = await visitorAndChatForTokenHash(request.server.db, token.hash);
  if (!found) throw unauthenticated();
  requestAccount(found.visitor.accountId, { tokenHash: token.hash });
  request.visitor = found.visitor;
  request.visitorChatting = found.chatting;
}

const keyIn = (v: unknown): string | undefined => {
  const key = v && typeof v === 'object' ? (v as Record<string, unknown>).unique_code : undefined;
  return typeof key === 'string' ? key : undefined;
};

/**
 * onRequest, before the visitor's token is looked up: the call counts against its IP and, with a
 * visitor token, against that visitor (its token hash: one token per visitor). A refused flood
 * costs no database read.
 */
async function limitWidgetRequest(request: FastifyRequest): Promise<void> {
  const limits = request.server.widgetLimits;
  await limits.ip(request.ip);
  const token = requestToken(request.raw);
  if (token) await limits.caller({ ip: request.ip, visitorKey: token.hash });
}

/**
 * preValidation of anonymous calls: they count against the widget key they name. The widget names
 * it in the query too (the refusal gate reads it there, before the body); a call naming two
 * different keys is refused.
 */
async function limitWidgetKey(request: FastifyRequest): Promise<void> {
  if (requestToken(request.raw)) return;
  const inBody = keyIn(request.body);
  const inQuery = keyIn(request.query);
  if (inBody !== undefined && inQuery !== undefined && inBody !== inQuery) throw new HttpError(400, KEY_MISMATCH);
  await request.server.widgetLimits.caller({ ip: request.ip, widgetKey: inBody ?? inQuery });
}

export const KEY_MISMATCH = 'The widget key in the query does not match the one in the body';

/**
 * The widget's limits on every route of a widget plugin (PRODUCT.md section 11 "Limits"): per IP,
 * per visitor, per widget key; refused with 429 and Retry-After. Sockets count the same budgets
 * (realtime/widgetSocket.ts). `keys: false` leaves the key out (the settings every page load reads).
 */
export function limitWidgetCalls(app: FastifyInstance, { keys = true }: { keys?: boolean } = {}): void {
  app.addHook('onRequest', limitWidgetRequest);
  if (keys) app.addHook('preValidation', limitWidgetKey);
  // Calls of these routes already known to be refused are answered before Fastify (plugins/refusalGate.ts).
  app.addHook('onRoute', (routeOptions) => {
    const newVisitor = [routeOptions.preValidation].flat().includes(limitNewVisitor);
    for (const method of [routeOptions.method].flat()) app.refusalGate.addRoute(method, routeOptions.url, { newVisitor, widgetKey: keys });
  });
}

/** Route preValidation of POST /widget/visitors: new visitors per IP and hour. */
export async function limitNewVisitor(request: FastifyRequest): Promise<void> {
  await request.server.widgetLimits.newVisitor(request.ip);
}
