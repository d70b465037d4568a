import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  CHAT_IMAGE_MAX_BYTES,
  CHAT_IMAGE_TOO_LARGE,
  MESSAGE_REQUIRED,
  createVisitorSchema,
  sinceIdQuery,
  updateWidgetVisitorSchema,
  widgetEventSchema,
  widgetMessageSchema,
} from '@parley/shared';
import { assertVisitorCanChat } from '../../billing/limits.js';
import { createVisitor } from '../../commands/createVisitor.js';
import { updateVisitor } from '../../commands/updateVisitor.js';
import { sendMessage } from '../../commands/sendMessage.js';
import type { Db } from '../../db/client.js';
import { GroupCommit } from '../../commands/groupCommit.js';
import { SYSTEM_LANE, runInLane } from '../../db/fair.js';
import type { VisitorRow } from '../../presenters/visitor.js';
import { decodeCursor } from '../../db/commitCursor.js';
import { accounts, conversations, messages, visitors, widgetLoads } from '../../db/schema.js';
import { HttpError, isForeignKeyViolation, notFound, parseOrThrow } from '../../errors.js';
import { parseJsonBody } from '../../plugins/bodyParsers.js';
import { CHAT_DOCUMENTS, readForm } from '../../plugins/uploads.js';
import { authenticateVisitor, limitNewVisitor, limitWidgetCalls } from '../../plugins/visitorAuth.js';
import { requestToken } from '../../plugins/auth.js';
import { clientIp } from '../../realtime/auth.js';
import { visitorVisibleMessages } from '../../policies/messages.js';
import { widgetWrite } from '../../services/widgetWrites.js';
import { requestAccount } from '../../plugins/dbLanes.js';
import { presentMessage } from '../../presenters/message.js';
import { listMessages } from '../conversations/messageList.js';
import { presentVisitor } from '../../presenters/visitor.js';
import { quietPolls } from '../../services/quietPolls.js';
import { type TtlCache, ttlCache } from '../../services/ttlCache.js';
import { messageDtoSchema, messageListSchema, okSchema, successSchema, visitorDtoSchema } from '../../presenters/dtoSchemas.js';
import { z } from 'zod';

const visitorSecured = { security: [{ bearer: [] }] };
const EVENT_STATUS = { load: 'Pending', connect: 'Active', error: 'Error' } as const;

/**
 * The account of a widget key, kept a while on each node (a key never changes; a new visitor, a
 * load report and a visitor's first call each asked the database before: one statement of the
 * two a new visitor costs). Unknown keys are kept too (a flood of made-up keys asks once per key).
 * An account deleted meanwhile: its writes fail on their foreign key, answered as an unknown key
 * (withKnownAccount).
 */
const accountsByKey = new WeakMap<Db, TtlCache<string, string | undefined>>();
async function accountIdForKey(db: Db, widgetKey: string): Promise<string> {
  let cache = accountsByKey.get(db);
  if (!cache) accountsByKey.set(db, (cache = ttlCache(KEY_CACHE_MS)));
  const accountId = await cache.get(widgetKey, async (key) => {
    const [account] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.widgetKey, key)).limit(1);
    return account?.id;
  });
  if (!accountId) throw notFound('Unknown widget');
  requestAccount(accountId, { widgetKey }); // this request's and the key's next database calls wait in the account's lane
  return accountId;
}
const KEY_CACHE_MS = 30_000;

/** Runs a write of a key's account; the account deleted since the key was looked up (foreign key violation): 404 as for an unknown key. */
async function withKnownAccount<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (isForeignKeyViolation(e)) throw notFound('Unknown widget');
    throw e;
  }
}

/**
 * A poll's cheap check (issue 15), one prepared statement per database: the visitor of each token,
 * and whether any message it may see committed since that poll's cursor snapshot
 * (db/commitCursor.ts: the rows the full read would return). No transaction, no snapshot, no rows
 * read. The first polls of many visitors arrive together (a node starting, a node's visitors
 * coming back): checks that arrive while one is in flight wait and go as one statement
 * (commands/groupCommit.ts), one token at most once per statement.
 */
interface PollCheck {
  hash: string;
  snapshot: string;
}
type PollCheckRow = { visitor: VisitorRow; fresh: boolean } | undefined;
const pollChecks = new WeakMap<Db, GroupCommit<PollCheck, PollCheckRow>>();

function preparePollChecks(db: Db) {
  const hashes = sql`${sql.placeholder('hashes')}::text[]`;
  const snapshot = sql`((${sql.placeholder('snapshots')}::text[])[array_position(${sql.placeholder('hashes')}::text[], "visitors"."token_hash")])::pg_snapshot`;
  const xactId = sql`${messages}.${sql.identifier('xact_id')}`;
  return db
    .select({
      visitor: visitors,
      // Names in full: drizzle leaves the table out of a one-table select's columns.
      fresh: sql<boolean>`exists (select 1 from ${conversations} join ${messages} on "messages"."conversation_id" = "conversations"."id"
        where "conversations"."visitor_id" = "visitors"."id" and ${visitorVisibleMessages()}
        and ${xactId} >= pg_snapshot_xmin(${snapshot}) and not pg_visible_in_snapshot(${xactId}, ${snapshot}))`,
    })
    .from(visitors)
    .where(sql`${visitors.tokenHash} = any(${hashes})`)
    .prepare('parley_widget_poll_checks');
}

function pollChecksOf(db: Db): GroupCommit<PollCheck, PollCheckRow> {
  let made = pollChecks.get(db);
  if (made) return made;
  const statement = preparePollChecks(db);
  made = new GroupCommit(async function checkPolls(items) {
    // A batch carries many accounts' polls: it waits in the server's own lane (db/fair.ts).
    const rows = await runInLane(SYSTEM_LANE, () => statement.execute({ hashes: items.map((i) => i.hash), snapshots: items.map((i) => i.snapshot) }));
    const byHash = new Map(rows.map((row) => [row.visitor.tokenHash, row]));
    return items.map((i) => byHash.get(i.hash));
  });
  pollChecks.set(db, made);
  return made;
}

/** The sizes of the poll-check batches this database ran (tests, diagnostics). */
export function pollCheckBatchSizes(db: Db): readonly number[] {
  return pollChecks.get(db)?.batchSizes ?? [];
}

/** A weak validator per cursor: the answer "nothing new since this cursor" is the same until something commits. */
const etagOf = (cursor: string) => `W/"${createHash('sha256').update(cursor).digest('base64url').slice(0, 22)}"`;

/** "Nothing new": the page the full read would give, as text (no serializer on the quiet path). */
const emptyPage = (cursor: string) => `{"message":"success","data":[],"next_cursor":${JSON.stringify(cursor)},"has_more":false}`;

const QUIET_CACHE_CONTROL = 'private, no-cache';
const JSON_TYPE = 'application/json; charset=utf-8';

function answerQuiet(request: FastifyRequest, reply: FastifyReply, cursor: string, etag: string): FastifyReply {
  reply.header('etag', etag).header('cache-control', QUIET_CACHE_CONTROL);
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  return reply.type(JSON_TYPE).send(emptyPage(cursor));
}

const POLL_PREFIX = '/api/widget/messages?cursor=';
/** A cursor as the widget sends it (base64url: the query's text is the value, nothing to decode). */
const PLAIN_CURSOR = /^[A-Za-z0-9_-]{1,400}$/;

/**
 * Issue 15: a poll this node remembers quiet (services/quietPolls.ts), answered on the HTTP
 * server's request event before Fastify (plugins/refusalGate.ts `answerEarly`): the same answer
 * as `pollOrAuthenticate`'s from memory (304 or the empty page, ETag, Cache-Control, the widget
 * routes' CORS headers), counted against the visitor's and its IP's limits from this node's
 * leases, without building a Fastify request, running its hooks or logging it (the HTTP
 * durations metric still counts it through `answered`). Anything else goes on to Fastify: a
 * poll not remembered, any other query, no lease point at hand (the hooks then spend and refuse
 * as usual).
 */
export function earlyQuietPolls(app: FastifyInstance, answered: (status: number, seconds: number) => void) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url;
    if (req.method !== 'GET' || !url || !url.startsWith(POLL_PREFIX)) return false;
    const cursor = url.slice(POLL_PREFIX.length);
    if (!PLAIN_CURSOR.test(cursor)) return false;
    const token = requestToken(req);
    if (!token || !app.hasDecorator('io')) return false;
    const known = quietPolls(app.io).lookup(token.hash, cursor);
    if (!known) return false;
    if (!app.widgetLimits.visitorCallLocally(clientIp(req, app.config.trustProxy), token.hash)) return false;
    const started = process.hrtime.bigint();
    const headers: Record<string, string | number> = { etag: known.etag, 'cache-control': QUIET_CACHE_CONTROL };
    // The widget routes answer any origin (app.ts PUBLIC_CORS_PREFIXES), as @fastify/cors does.
    const origin = req.headers.origin;
    if (origin) headers['access-control-allow-origin'] = origin;
    headers.vary = 'Origin';
    let status = 304;
    if (req.headers['if-none-match'] === known.etag) {
      res.writeHead(304, headers).end();
    } else {
      status = 200;
      const body = emptyPage(cursor);
      headers['content-type'] = JSON_TYPE;
      headers['content-length'] = Buffer.byteLength(body);
      res.writeHead(200, headers).end(body);
    }
    answered(status, Number(process.hrtime.bigint() - started) / 1e9);
    return true;
  };
}

/**
 * onRequest of GET /widget/messages: a poll with only a cursor (the widget's every poll after its
 * first load) is answered "nothing new" from the cheap check, as 304 to a client that holds that
 * answer (If-None-Match) or as an empty page that keeps the same cursor (so the next poll asks the
 * same URL and a browser revalidates it). The check's "nothing new" is remembered on the node
 * (services/quietPolls.ts): the token's next polls of that cursor are answered from memory, with
 * no SQL, until a push to the visitor's room is heard. A poll with something new, or any other
 * call, goes on to the full read with the visitor already known. An unknown token takes the usual
 * way (a reply email's token, or 401).
 */
async function pollOrAuthenticate(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const query = request.query as Record<string, unknown>;
  const cursor = typeof query.cursor === 'string' && Object.keys(query).length === 1 ? query.cursor : undefined;
  const tokenHash = cursor ? requestToken(request.raw)?.hash : undefined;
  if (!cursor || !tokenHash) return authenticateVisitor(request);
  const quiet = quietPolls(request.server.io);
  const known = quiet.lookup(tokenHash, cursor);
  if (known) return answerQuiet(request, reply, cursor, known.etag);
  const snapshot = decodeCursor(cursor);
  if (!snapshot) return authenticateVisitor(request);
  const seq = quiet.begin();
  const row = await pollChecksOf(request.server.db).submit(tokenHash, { hash: tokenHash, snapshot });
  if (!row) return authenticateVisitor(request);
  requestAccount(row.visitor.accountId, { tokenHash });
  request.visitor = row.visitor;
  if (row.fresh) return;
  const etag = etagOf(cursor);
  quiet.keep(tokenHash, { visitorId: row.visitor.id, cursor, etag, seq });
  return answerQuiet(request, reply, cursor, etag);
}

/** The widget's own calls (PRODUCT.md section 4): public, or with the visitor's own token. */
export default async function widgetRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  limitWidgetCalls(app);

  app.post('/widget/visitors', { schema: { tags: ['widget'], body: createVisitorSchema, response: { 201: okSchema(z.object({ visitor_id: z.string(), visitor_token: z.string() })) } }, preValidation: limitNewVisitor }, async (request, reply) => {
    const body = request.body;
    const accountId = await accountIdForKey(app.db, body.unique_code);
    const { visitor, token } = await widgetWrite(app, { accountId }, () =>
      withKnownAccount(() => createVisitor(app.db, {
        accountId,
        ip: request.ip,
        userAgent: request.headers['user-agent'],
        name: body.name,
        email: body.email,
        pageUrl: body.page_url,
        referrer: body.referrer,
        locale: body.locale,
        timeZone: body.time_zone,
      })),
    );
    requestAccount(accountId, { tokenHash: visitor.tokenHash }); // the visitor's next calls start in the account's lane
    return reply.status(201).send({ message: 'success', data: { visitor_id: visitor.id, visitor_token: token } });
  });

  app.get(
    '/widget/messages',
    { schema: { tags: ['widget'], querystring: sinceIdQuery, response: { 200: messageListSchema }, ...visitorSecured }, onRequest: pollOrAuthenticate },
    async (request) => {
      const { data, nextCursor, hasMore } = await listMessages(app.db, request.query, async (tx) => {
        const [conversation] = await tx.select().from(conversations).where(eq(conversations.visitorId, request.visitor.id));
        return { conversation: conversation ?? null };
      }, { forVisitor: true });
      return { message: 'success', data, next_cursor: nextCursor, has_more: hasMore };
    },
  );

  app.post(
    '/widget/messages',
    { schema: { tags: ['widget'], response: { 200: okSchema(messageDtoSchema), 201: okSchema(messageDtoSchema) }, ...visitorSecured }, onRequest: authenticateVisitor },
    async (request, reply) => {
      const form = await readForm(request, { fileField: 'image', maxBytes: CHAT_IMAGE_MAX_BYTES, tooLargeMessage: CHAT_IMAGE_TOO_LARGE, ...CHAT_DOCUMENTS });
      const input = parseOrThrow(widgetMessageSchema, form.fields);
      if (!input.message && !form.image && !form.file) throw new HttpError(422, MESSAGE_REQUIRED, { message: [MESSAGE_REQUIRED] });
      const visitor = request.visitor;
      const result = await widgetWrite(app, { accountId: visitor.accountId, visitorId: visitor.id, startsChat: true, chatting: request.visitorChatting }, async () => {
        const { hasConversation } = await assertVisitorCanChat(app, visitor, new Date());
        return sendMessage(app, {
          visitor,
          senderType: 'visitor',
          author: null,
          text: input.message,
          image: form.image,
          file: form.file,
          clientId: input.client_id,
          newConversation: !hasConversation,
        });
      });
      const data = presentMessage(result.message, visitor.id, result.authorName);
      // 201 for a new message; 200 with the stored one when this client_id was already sent.
      return reply.status(result.created ? 201 : 200).send({ message: 'success', data });
    },
  );

  app.patch(
    '/widget/visitor',
    { schema: { tags: ['widget'], body: updateWidgetVisitorSchema, response: { 200: okSchema(visitorDtoSchema) }, ...visitorSecured }, onRequest: authenticateVisitor },
    async (request) => {
      const { name, email, page_url: pageUrl, time_zone: timeZone } = request.body;
      const visitor = await updateVisitor(app, request.visitor, { name, email, pageUrl, timeZone });
      if (!visitor) throw new HttpError(401, 'Unauthenticated'); // deleted between auth and update
      return { message: 'success', data: presentVisitor(visitor) };
    },
  );

  // The loader posts its reports as text/plain JSON too: a CORS "simple" request, so the host page
  // sends no preflight before each (the call is public, no credentials: nothing for a preflight to guard).
  await app.register(async (plain) => {
    plain.removeContentTypeParser('text/plain');
    plain.addContentTypeParser('text/plain', { parseAs: 'buffer' }, parseJsonBody);
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    scope.post('/widget/events', { schema: { tags: ['widget'], body: widgetEventSchema, response: { 202: successSchema } } }, async (request, reply) => {
      const { unique_code: key, load_id: id, kind, detail } = request.body;
      const accountId = await accountIdForKey(app.db, key);
      const status = EVENT_STATUS[kind];
      const row = { id, accountId, status, detail };
      await widgetWrite(app, { accountId }, () => withKnownAccount(async () => {
        if (kind === 'load') {
          // A load never downgrades a load that already connected or failed.
          await app.db.insert(widgetLoads).values(row).onConflictDoNothing({ target: [widgetLoads.accountId, widgetLoads.id] });
        } else {
          await app.db
            .insert(widgetLoads)
            .values(row)
            .onConflictDoUpdate({
              target: [widgetLoads.accountId, widgetLoads.id],
              set: { status, updatedAt: new Date(), ...(detail ? { detail } : {}) },
            });
        }
      }));
      return reply.status(202).send({ message: 'success' });
    });
  });
}
