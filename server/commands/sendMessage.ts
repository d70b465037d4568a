import { and, eq, getTableColumns, sql } from 'drizzle-orm';
import { PgDialect, type PgTable } from 'drizzle-orm/pg-core';
import type { Db, Tx } from '../db/client.js';
import { aiAnswers, aiHandovers, conversations, messages, outbox, pushOutbox, users, visitors } from '../db/schema.js';
import type { JobQueue } from '../jobs/types.js';
import { assertAgentCanStartChat } from '../billing/limits.js';
import { messageJobRules, ruleApplies, ruleEntry, type MessageJobRule } from '../notifications/messageJobs.js';
import { writeOutbox } from '../outbox/outbox.js';
import { FILE_PLACEHOLDER, type MessageAiDto } from '@parley/shared';
import { NODE_ID } from '../outbox/pushRelay.js';
import type { UploadedFile, UploadedImage } from '../plugins/uploads.js';
import type { ConversationRow } from '../presenters/conversation.js';
import type { MessageRow } from '../presenters/message.js';
import type { VisitorRow } from '../presenters/visitor.js';
import type { DomainEvents } from '../services/domainEvents.js';
import type { Storage } from '../services/storage.js';
import { routeNewConversation } from '../policies/routing.js';
import { SYSTEM_LANE, runInLane } from '../db/fair.js';
import { GroupCommit } from './groupCommit.js';
import { statusPatch } from './conversationLifecycle.js';
import { insertSystemLine, lines } from './systemLine.js';

const LAST_SEEN_GRAIN_MS = 60_000;

/** Shown as the conversation's last message when a message is only an image. */
export const IMAGE_PLACEHOLDER = '[image]';

export interface SendMessageInput {
  visitor: VisitorRow;
  /** 'visitor' from the widget, 'user' from the console, 'bot' from the AI assistant. */
  senderType: 'visitor' | 'user' | 'bot';
  /** The staff user for sender_type 'user' (the actor: their name goes with the push). */
  author: { id: number; name: string } | null;
  /** Already trimmed; may be '' when an image is sent. */
  text: string;
  image?: UploadedImage | undefined;
  /** Issue 13: an attachment from the `file` field (an image or a document); a message has at most one of image/file. */
  file?: UploadedFile | undefined;
  /** Client-generated id: a retried send returns the first message instead of a second one. */
  clientId?: string | undefined;
  /** false for the offline form: a conversation it opens is not a chat of the plan's monthly limit. */
  countsTowardLimit?: boolean | undefined;
  /** Sent through the widget's offline form: the owner is emailed even while agents are online. */
  offlineForm?: boolean | undefined;
  /** Issue 17: this bot message is the assistant's answer: recorded in ai_answers before it is pushed. */
  ai?: { patternId: number | null; passageId: number | null; confidence: number; citation: MessageAiDto['citation'] } | undefined;
  /** The widget socket it came on: its ack carries the stored message, so the visitor's push skips it (message.stored). */
  originSocketId?: string | undefined;
  /** Issue 17: this bot message is the assistant's hand-over: when the team is back or replies (ai_handovers), for the widget to word. */
  handover?: { backAt: Date | null; replySeconds: number | null } | undefined;
  /**
   * The caller has just seen that the visitor has no conversation (the plan's new-chat check
   * looks): it is opened at once, complete with this message, instead of first trying the
   * one-statement append, which would find none. A hint only: a conversation another send opened
   * meanwhile is joined as usual.
   */
  newConversation?: boolean | undefined;
}

export interface SendMessageResult {
  message: MessageRow;
  conversation: ConversationRow;
  visitor: VisitorRow;
  authorName: string | null;
  /** false when the client_id was already stored: `message` is the earlier one, nothing changed. */
  created: boolean;
  /** true when this message opened the visitor's conversation. */
  conversationCreated: boolean;
  /**
   * The system lines this message caused (a visitor reopening a pending or resolved
   * conversation; routing assigning a new one), pushed after the message.
   */
  changes?: { line: MessageRow; previousAssigneeId: number | null; assigneeName: string | null }[];
}

type Stored = SendMessageResult & { jobsRecorded: number };

interface Deps {
  db: Db;
  storage: Storage;
  events: DomainEvents;
  /** The job queue: the jobs a message causes are recorded in the outbox with the message. */
  jobs?: Pick<JobQueue, 'settings' | 'wake'> | undefined;
}

async function findByClientId(db: Tx, visitorId: string, clientId: string): Promise<MessageRow | undefined> {
  const [row] = await db
    .select({ message: messages })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(and(eq(conversations.visitorId, visitorId), eq(messages.clientId, clientId)))
    .limit(1);
  return row?.message;
}

/**
 * Stores one chat message, console or widget: finds or creates the visitor's conversation,
 * inserts the message once per client_id, updates the conversation's last message and unread
 * count, and records the notification jobs the message causes in the outbox, all in one
 * transaction. Callers emit real-time events after it returns.
 */
export async function sendMessage(deps: Deps, input: SendMessageInput): Promise<SendMessageResult> {
  // An agent's message to a visitor without a conversation starts a chat: the plan's limit applies.
  if (input.senderType === 'user') {
    const { hasConversation } = await assertAgentCanStartChat(deps, input.visitor, new Date());
    input = { ...input, newConversation: !hasConversation };
  }
  const facts = {
    accountId: input.visitor.accountId,
    senderType: input.senderType,
    visitorHasEmail: Boolean(input.visitor.email),
    offlineForm: input.offlineForm === true,
  };
  const rules = deps.jobs ? await messageJobRules(deps.db, deps.jobs.settings, facts) : [];
  const { jobsRecorded, ...result } = await storeMessage(deps, input, rules);
  if (jobsRecorded > 0) deps.jobs?.wake();
  // After the commit: real-time push and learning react to a new message (a repeated
  // client_id stored nothing new).
  const { created, changes, ...stored } = result;
  let ai: MessageAiDto | undefined;
  if (created && input.ai) ai = { citation: input.ai.citation, vote: null };
  else if (created && input.handover) ai = { citation: null, vote: null, handover: { back_at: input.handover.backAt?.toISOString() ?? null, reply_seconds: input.handover.replySeconds } };
  if (created) {
    const origin = input.originSocketId ? { originSocketId: input.originSocketId } : {};
    await deps.events.emit('message.stored', { accountId: input.visitor.accountId, ...stored, ...(ai ? { ai } : {}), ...origin });
  }
  for (const change of changes ?? []) {
    await deps.events.emit('conversation.changed', {
      accountId: input.visitor.accountId,
      conversation: result.conversation,
      visitor: result.visitor,
      ...change,
      lineAuthorName: null,
    });
  }
  return result;
}

async function storeMessage(deps: Deps, input: SendMessageInput, rules: MessageJobRule[]): Promise<Stored> {
  const { db, storage } = deps;
  const { visitor, clientId } = input;
  const accountId = visitor.accountId;

  // A retry of a stored message must not write its image again; the race is settled below.
  if (clientId && (input.image || input.file)) {
    const existing = await findByClientId(db, visitor.id, clientId);
    if (existing) return repeat(db, existing, visitor);
  }
  // The file is written before the transaction so no row ever points at a missing file.
  const attached = attachmentOf(input);
  const filePath = attached ? await storage.save(accountId, attached.bytes, attached.ext, { document: !attached.isImage }) : '';
  const file = { filePath, fileName: attached?.name ?? '', fileType: attached?.mime ?? '', fileSize: attached?.bytes.length ?? 0 };

  // The assistant's answer (ai_answers) or hand-over (ai_handovers) records its row in the message's transaction: only the transaction path does.
  const fast = input.ai || input.handover || input.newConversation ? undefined : await appendToConversation(db, input, file, rules);
  if (fast) return fast;

  const fromVisitor = input.senderType === 'visitor';
  return db.transaction(async (tx) => {
    // Most messages join a conversation that exists: look first, insert only when missing.
    // Two first messages at once: the unique index on visitor_id keeps one conversation.
    const byVisitor = eq(conversations.visitorId, visitor.id);
    let [conversation] = input.newConversation ? [] : await tx.select().from(conversations).where(byVisitor);
    let opened = false;
    if (!conversation) {
      const created = await tx
        .insert(conversations)
        .values({
          accountId,
          visitorId: visitor.id,
          ...(input.countsTowardLimit === false ? { countedAt: null } : {}),
          // Opened complete with this message (now() is the transaction's time, the message's
          // created_at too): no update of the new row after the message, and the messages
          // trigger (0017) finds its times already set. One row version instead of three.
          lastMessage: lastMessageOf(input),
          lastMessageAt: sql`now()`,
          unreadCount: fromVisitor ? 1 : 0,
          ...(fromVisitor ? { firstVisitorMessageAt: sql`now()`, waitingSince: sql`now()` } : {}),
        })
        .onConflictDoNothing({ target: conversations.visitorId })
        .returning();
      opened = created.length > 0;
      [conversation] = opened ? created : await tx.select().from(conversations).where(byVisitor);
    }
    if (!conversation) throw new Error('conversation missing after insert');

    const [inserted] = await tx
      .insert(messages)
      .values({
        accountId,
        conversationId: conversation.id,
        clientId: clientId ?? null,
        senderType: input.senderType,
        authorId: input.author?.id ?? null,
        message: input.text,
        ...file,
      })
      .onConflictDoNothing({ target: [messages.conversationId, messages.clientId] })
      .returning();

    if (!inserted) {
      // Same client_id already stored (a retry, or a concurrent send that won): return that one.
      const [existing] = await tx
        .select()
        .from(messages)
        .where(and(eq(messages.conversationId, conversation.id), eq(messages.clientId, clientId ?? '')));
      if (!existing) throw new Error('message conflict without a stored message');
      return repeat(tx, existing, visitor);
    }
    // The push this message is owed, written with it (outbox/pushRelay.ts: relayed if this node dies before pushing).
    await tx.insert(pushOutbox).values({ messageId: inserted.id, node: NODE_ID });
    // The assistant's answer (its citation and the record visitors vote on) commits with the message.
    if (input.ai) {
      await tx.insert(aiAnswers).values({
        messageId: inserted.id,
        accountId,
        conversationId: conversation.id,
        patternId: input.ai.patternId,
        passageId: input.ai.passageId,
        confidence: input.ai.confidence,
      });
    }
    // The assistant's hand-over: when the team is back or replies, for the widget to word.
    if (input.handover) {
      const { backAt, replySeconds } = input.handover;
      await tx.insert(aiHandovers).values({ messageId: inserted.id, accountId, conversationId: conversation.id, backAt, replySeconds });
    }

    // A visitor writing reopens a pending (snoozed) or resolved conversation, with a system line.
    const reopens = fromVisitor && conversation.status !== 'open';
    // A visitor's new chat may be routed to an Agent (policies/routing.ts); offline-form messages are not chats.
    const routed = opened && fromVisitor && input.countsTowardLimit !== false ? await routeNewConversation(db, tx, accountId) : null;
    // A conversation this message opened already carries it: only routing changes it further.
    const [updated] =
      opened && !routed
        ? [conversation]
        : await tx
            .update(conversations)
            .set({
              lastMessage: lastMessageOf(input),
              lastMessageAt: inserted.createdAt,
              unreadCount: opened ? conversation.unreadCount : fromVisitor ? sql`${conversations.unreadCount} + 1` : 0,
              ...(reopens ? statusPatch(conversation, 'open', inserted.createdAt) : {}),
              ...(routed ? { assigneeId: routed.id } : {}),
            })
            .where(eq(conversations.id, conversation.id))
            .returning();
    const changes: NonNullable<SendMessageResult['changes']> = [];
    if (reopens) {
      const line = await insertSystemLine(tx, conversation, lines.reopenedByItself(), null);
      changes.push({ line, previousAssigneeId: conversation.assigneeId, assigneeName: await authorNameOf(tx, conversation.assigneeId) });
    }
    if (routed) {
      const line = await insertSystemLine(tx, conversation, lines.routed(routed.name), null);
      // Never seen unassigned: no "old audience" to tell.
      changes.push({ line, previousAssigneeId: routed.id, assigneeName: routed.name });
    }
    const current = fromVisitor ? await touchVisitor(tx, visitor) : visitor;
    const now = updated ?? conversation;
    const jobs = rules
      .filter((r) => ruleApplies(r, { opened, unreadCount: now.unreadCount }))
      .map((r) => ruleEntry(r, { accountId, conversationId: now.id, messageId: inserted.id }));
    return {
      message: inserted,
      conversation: now,
      visitor: current,
      authorName: input.author?.name ?? null,
      created: true,
      conversationCreated: opened,
      changes,
      jobsRecorded: await writeOutbox(tx, jobs),
    };
  });
}

async function authorNameOf(db: Tx, authorId: number | null): Promise<string | null> {
  if (authorId === null) return null;
  const [row] = await db.select({ name: users.name }).from(users).where(eq(users.id, authorId));
  return row?.name ?? null;
}

async function repeat(db: Tx, message: MessageRow, visitor: VisitorRow): Promise<Stored> {
  const [conversation] = await db.select().from(conversations).where(eq(conversations.id, message.conversationId));
  if (!conversation) throw new Error('message without conversation');
  return { message, conversation, visitor, authorName: await authorNameOf(db, message.authorId), created: false, conversationCreated: false, jobsRecorded: 0 };
}

/** Last seen is minute-grained: a visitor writing fast does not rewrite their row each time. */
async function touchVisitor(db: Tx, visitor: VisitorRow): Promise<VisitorRow> {
  if (Date.now() - visitor.lastSeenAt.getTime() <= LAST_SEEN_GRAIN_MS) return visitor;
  const [seen] = await db.update(visitors).set({ lastSeenAt: new Date() }).where(eq(visitors.id, visitor.id)).returning();
  return seen ?? visitor;
}

/** Per table, once: each column's property, SQL name and whether it is a timestamp. */
const jsonColumns = new WeakMap<PgTable, { key: string; name: string; date: boolean }[]>();

/** A row from `row_to_json`, keyed and typed like drizzle's select (timestamps become Dates). */
function rowFromJson<T extends PgTable>(table: T, json: Record<string, unknown>): T['$inferSelect'] {
  let columns = jsonColumns.get(table);
  if (!columns) {
    columns = Object.entries(getTableColumns(table)).map(([key, col]) => ({ key, name: col.name, date: col.dataType === 'date' }));
    jsonColumns.set(table, columns);
  }
  const out: Record<string, unknown> = {};
  for (const { key, name, date } of columns) {
    const v = json[name];
    out[key] = v !== null && v !== undefined && date ? new Date(v as string) : v;
  }
  return out as T['$inferSelect'];
}

const param = (name: string) => sql.placeholder(name);

/**
 * The common case in one statement (one round trip, atomic): the conversation exists and the
 * message is new. Built once and run as a named prepared statement, so PostgreSQL parses and
 * plans it once per connection, not once per message. It takes a batch (group commit: each
 * column an array, one element per message, at most one message per conversation): the
 * messages a node receives while its last batch is being written commit together, one WAL flush
 * for them all (commands/groupCommit.ts). The notification jobs each message causes (`jobs`:
 * the rules of notifications/messageJobs.ts as JSON) are outbox rows written by the same
 * statement, only when a rule applies (most messages write none): ruleEntry() in SQL.
 */
export const APPEND_QUERY = new PgDialect().sqlToQuery(sql`
  with input as (
    select * from unnest(${param('visitorIds')}::uuid[], ${param('accountIds')}::uuid[], ${param('clientIds')}::text[], ${param('senderTypes')}::text[],
      ${param('authorIds')}::int[], ${param('texts')}::text[], ${param('filePaths')}::text[], ${param('fileNames')}::text[], ${param('fileTypes')}::text[],
      ${param('fileSizes')}::int[], ${param('lastMessages')}::text[], ${param('fromVisitors')}::boolean[], ${param('jobs')}::text[])
      with ordinality as i(visitor_id, account_id, client_id, sender_type, author_id, message, file_path, file_name, file_type, file_size, last_message, from_visitor, jobs, ord)
    -- Filters nothing: it tells the planner a batch is a row or a few. Planned once for any batch
    -- (a prepared statement), it cannot see the arrays' length and took 10 rows, and on a table
    -- of up to a few thousand conversations it then read the whole table twice per statement
    -- (hash joins) instead of looking each conversation up by its index (issue 15).
    where i.ord between 1 and 9223372036854775807
  ),
  conv as (
    -- A visitor writing to a pending or resolved conversation takes the transaction path (it reopens it).
    select i.ord, c.id from input i join ${conversations} c on c.visitor_id = i.visitor_id and (c.status = 'open' or not i.from_visitor)
  ),
  -- The batch's conversation rows, locked in id order before anything is written (ins joins it,
  -- and sorts, so every lock is taken first). The update alone locked them in the batch's order
  -- (arrival order, each node its own): two nodes' batches writing the same conversations
  -- deadlocked (a second lost, then one aborted and retried), and a single UPDATE waiting on one
  -- of those rows between them (an agent opening the conversation marks it read) could be the
  -- one PostgreSQL aborted: a poll answered 500. One order for every batch: they wait instead.
  locked as materialized (
    select c.id from ${conversations} c where c.id in (select id from conv) order by c.id for no key update
  ),
  ins as (
    insert into ${messages} (account_id, conversation_id, client_id, sender_type, author_id, message, file_path, file_name, file_type, file_size)
    select i.account_id, conv.id, i.client_id, i.sender_type, i.author_id, i.message, i.file_path, i.file_name, i.file_type, i.file_size
    from input i join conv on conv.ord = i.ord join locked on locked.id = conv.id order by i.ord
    on conflict (conversation_id, client_id) do nothing
    returning *
  ),
  upd as (
    update ${conversations} c set
      last_message = i.last_message,
      last_message_at = ins.created_at,
      unread_count = case when i.from_visitor then c.unread_count + 1 else 0 end,
      -- What the messages trigger (0017, parley_message_times) keeps, written here in the same row
      -- version: the trigger then finds nothing left to change (no second update of the row and its indexes).
      first_visitor_message_at = case when ins.sender_type = 'visitor' then coalesce(c.first_visitor_message_at, ins.created_at) else c.first_visitor_message_at end,
      waiting_since = case ins.sender_type when 'visitor' then coalesce(c.waiting_since, ins.created_at) when 'user' then null else c.waiting_since end,
      first_reply_at = case when ins.sender_type = 'user' and c.first_reply_at is null and c.first_visitor_message_at is not null then ins.created_at else c.first_reply_at end
    from ins join conv on conv.id = ins.conversation_id join input i on i.ord = conv.ord
    where c.id = ins.conversation_id
    returning c.*
  ),
  ob as (
    insert into ${outbox} (topic, name, payload, dedupe_key, run_at)
    select 'job', j.name,
      jsonb_build_object('accountId', upd.account_id, 'conversationId', upd.id, 'key', gen_random_uuid()::text)
        || case when j.with_message then jsonb_build_object('messageId', ins.id) else '{}'::jsonb end,
      j.dedupe_prefix || upd.id::text,
      now() + j.delay_ms * interval '1 millisecond'
    from ins join upd on upd.id = ins.conversation_id join conv on conv.id = ins.conversation_id join input i on i.ord = conv.ord
      cross join lateral jsonb_to_recordset(i.jobs::jsonb) as j(name text, dedupe_prefix text, delay_ms bigint, cond text, with_message boolean)
    where j.cond = 'always' or (j.cond = 'firstUnread' and upd.unread_count <= 1)
    on conflict (dedupe_key) where status in ('pending', 'relayed') do nothing
    returning (payload->>'conversationId')::int as conversation_id
  ),
  -- The push each message is owed (outbox/pushRelay.ts), written by the same statement.
  po as (
    insert into ${pushOutbox} (message_id, node) select id, ${param('node')} from ins
  )
  select conv.ord, row_to_json(ins) as m, row_to_json(upd) as c, (select count(*)::int from ob where ob.conversation_id = conv.id) as jobs
  from conv left join ins on ins.conversation_id = conv.id left join upd on upd.id = conv.id`);

/** Anything else than the common case (first message, a repeated client_id) returns undefined and takes the transaction path. */
type StoredFileFields = { filePath: string; fileName: string; fileType: string; fileSize: number };

/** The message's attachment: the `file` field's, or the SPEC `image` field's (named "image.<ext>"). */
function attachmentOf(input: SendMessageInput): UploadedFile | undefined {
  if (input.file) return input.file;
  const img = input.image;
  return img ? { bytes: img.bytes, mime: img.mime, ext: img.ext, name: img.name ?? `image.${img.ext}`, isImage: true } : undefined;
}

/** The conversation list's preview: the text, else a placeholder for an image or a document. */
function lastMessageOf(input: SendMessageInput): string {
  if (input.text) return input.text;
  return input.file && !input.file.isImage ? `${FILE_PLACEHOLDER} ${input.file.name}` : IMAGE_PLACEHOLDER;
}

/** One message of an append batch: its columns, and the rules of the jobs it may cause. */
interface AppendItem {
  visitorId: string;
  accountId: string;
  clientId: string | null;
  senderType: string;
  authorId: number | null;
  text: string;
  file: StoredFileFields;
  lastMessage: string;
  fromVisitor: boolean;
  jobs: string;
}
type AppendRow = { m: Record<string, unknown> | null; c: Record<string, unknown> | null; jobs: number } | undefined;

/** One group commit per database (per node): commands/groupCommit.ts. */
const appenders = new WeakMap<Db, GroupCommit<AppendItem, AppendRow>>();

function appenderOf(db: Db): GroupCommit<AppendItem, AppendRow> {
  let made = appenders.get(db);
  if (made) return made;
  const statement = db._.session.prepareQuery(APPEND_QUERY, undefined, 'parley_append_messages', false);
  made = new GroupCommit(async (items) => {
    // A batch carries many accounts' messages: it waits in the server's own lane (db/fair.ts).
    const res = await runInLane(SYSTEM_LANE, () =>
      statement.execute({
        visitorIds: items.map((i) => i.visitorId),
        accountIds: items.map((i) => i.accountId),
        clientIds: items.map((i) => i.clientId),
        senderTypes: items.map((i) => i.senderType),
        authorIds: items.map((i) => i.authorId),
        texts: items.map((i) => i.text),
        filePaths: items.map((i) => i.file.filePath),
        fileNames: items.map((i) => i.file.fileName),
        fileTypes: items.map((i) => i.file.fileType),
        fileSizes: items.map((i) => i.file.fileSize),
        lastMessages: items.map((i) => i.lastMessage),
        fromVisitors: items.map((i) => i.fromVisitor),
        jobs: items.map((i) => i.jobs),
        node: NODE_ID,
      }),
    );
    const byOrd = new Map<number, AppendRow>();
    for (const row of (res as { rows: (NonNullable<AppendRow> & { ord: number | string })[] }).rows) byOrd.set(Number(row.ord), row);
    return items.map((_, i) => byOrd.get(i + 1));
  });
  appenders.set(db, made);
  return made;
}

/** The sizes of the append batches this database's group commit ran (tests, diagnostics). */
export function appendBatchSizes(db: Db): readonly number[] {
  return appenders.get(db)?.batchSizes ?? [];
}

async function appendToConversation(db: Db, input: SendMessageInput, file: StoredFileFields, rules: MessageJobRule[]): Promise<Stored | undefined> {
  const { visitor } = input;
  const fromVisitor = input.senderType === 'visitor';
  const row = await appenderOf(db).submit(visitor.id, {
    visitorId: visitor.id,
    accountId: visitor.accountId,
    clientId: input.clientId ?? null,
    senderType: input.senderType,
    authorId: input.author?.id ?? null,
    text: input.text,
    file,
    lastMessage: lastMessageOf(input),
    fromVisitor,
    // 'opened' never applies here: the conversation exists.
    jobs: JSON.stringify(
      rules
        .filter((r) => r.when !== 'opened')
        .map((r) => ({ name: r.name, dedupe_prefix: r.dedupePrefix, delay_ms: r.delayMs, cond: r.when, with_message: r.withMessageId })),
    ),
  });
  if (!row?.m || !row.c) return undefined;
  const message = rowFromJson(messages, row.m);
  return {
    message,
    conversation: rowFromJson(conversations, row.c),
    visitor: fromVisitor ? await touchVisitor(db, visitor) : visitor,
    authorName: input.author?.name ?? null,
    created: true,
    conversationCreated: false,
    jobsRecorded: row.jobs,
  };
}
