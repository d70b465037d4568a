/**
 * Ingestion of the assistant's knowledge sources (issue 17): a refresh reads the source (a
 * website: crawl.ts; a document or an FAQ file: the stored file), cuts it into passages
 * (chunk.ts) and replaces the source's passages in one transaction, then records the outcome on
 * the source (status, counts, what was skipped, when it runs next). It runs as the job
 * `ai.refreshSource`, one pending per source (dedupe key): a website's job defers itself to the
 * next day, documents and FAQ files are refreshed on demand only. A sweep job (`ai.sourcesDue`)
 * puts back any due website whose job was lost.
 */
import { and, asc, eq, inArray, isNotNull, lte, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import { type AiSourceDto, SOURCE_FILE_MAX_BYTES } from '@parley/shared';
import { hasProfessional } from '../../billing/limits.js';
import type { Db, Tx } from '../../db/client.js';
import { aiPassages, aiSources } from '../../db/schema.js';
import { DeferJob, defineJob, JOB_TOPIC, type JobContext, type JobQueue } from '../../jobs/types.js';
import { writeOutbox } from '../../outbox/outbox.js';
import { storageAt } from '../../storage/backend.js';
import type { OutboundPolicy } from '../../services/outbound.js';
import { type Chunk, chunkDocument, chunkFaq } from './chunk.js';
import { CrawlError, type CrawlResult, crawlSite, type SkipReason } from './crawl.js';
import { DOCUMENT_EXTENSIONS, type DocumentExtension, fileToDocument, parseFaqCsv, SourceFormatError } from './extract.js';

const DAY_MS = 86_400_000;

/** The limits of sources (docs/DECISIONS.md, issue 17); tests lower the crawl's pace and sizes by changing this object. */
export const sourceSettings = {
  /** Sources one account may have. */
  maxSourcesPerAccount: 20,
  /** Passages one account may keep over all its sources. */
  maxPassagesPerAccount: 10_000,
  /** Pages one crawl reads at most. */
  maxPages: 200,
  /** Bytes read of one page. */
  maxPageBytes: 2 * 1024 * 1024,
  /** Each of the two crawl workers waits this long between requests (robots.txt Crawl-delay may raise it). */
  crawlDelayMs: 250,
  /** One crawl, under the in-process runner's 5-minute job lock. */
  crawlDeadlineMs: 4 * 60_000,
  /** A website is read again this long after each refresh. */
  refreshEveryMs: DAY_MS,
  /** Bytes of an uploaded document or FAQ file. */
  maxFileBytes: SOURCE_FILE_MAX_BYTES,
};

export const SOURCE_JOB = 'ai.refreshSource';
export const sourceJobKey = (sourceId: string) => `ai.source:${sourceId}`;

type SourceRow = typeof aiSources.$inferSelect;

export function presentSource(s: SourceRow): AiSourceDto {
  return {
    id: s.id,
    kind: s.kind,
    name: s.name,
    url: s.url,
    status: s.status,
    page_count: s.pageCount,
    passage_count: s.passageCount,
    last_refreshed_at: s.lastRefreshedAt?.toISOString() ?? null,
    next_refresh_at: s.nextRefreshAt?.toISOString() ?? null,
    error: s.error,
    created_at: s.createdAt.toISOString(),
  };
}

/** Queues a refresh of the source now (or after delayMs), replacing the one pending. */
export async function scheduleRefresh(jobs: JobQueue, source: { id: string; accountId: string }, delayMs = 0): Promise<void> {
  await jobs.cancel(sourceJobKey(source.id));
  await jobs.enqueue(SOURCE_JOB, { accountId: source.accountId, sourceId: source.id }, { dedupeKey: sourceJobKey(source.id), delayMs });
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const pathsOf = (urls: string[]) => {
  const shown = urls.slice(0, 3).map((u) => {
    try {
      return new URL(u).pathname;
    } catch {
      return u;
    }
  });
  return shown.join(', ') + (urls.length > 3 ? ', ...' : '');
};

/** What a crawl left out, as the owner reads it ('' when nothing worth saying). */
export function crawlSummary(result: CrawlResult, maxPageBytes: number): string {
  const by = new Map<SkipReason, string[]>();
  for (const s of result.skipped) by.set(s.reason, [...(by.get(s.reason) ?? []), s.url]);
  const parts: string[] = [];
  const add = (reason: SkipReason, say: (urls: string[]) => string) => {
    const urls = by.get(reason);
    if (urls?.length) parts.push(say(urls));
  };
  add('robots', (u) => `${plural(u.length, 'page')} skipped: robots.txt disallows ${pathsOf(u)}`);
  add('not_html', (u) => `${plural(u.length, 'file')} skipped: not an HTML page (${pathsOf(u)})`);
  add('redirect_loop', (u) => `${plural(u.length, 'page')} skipped: redirect loop (${pathsOf(u)})`);
  add('too_many_redirects', (u) => `${plural(u.length, 'page')} skipped: too many redirects (${pathsOf(u)})`);
  add('http_error', (u) => `${plural(u.length, 'page')} skipped: the site answered an error (${pathsOf(u)})`);
  add('failed', (u) => `${plural(u.length, 'page')} could not be read (${pathsOf(u)})`);
  add('noindex', (u) => `${plural(u.length, 'page')} skipped: marked noindex (${pathsOf(u)})`);
  const cut = result.pages.filter((p) => p.truncated).map((p) => p.url);
  if (cut.length) parts.push(`${plural(cut.length, 'page')} too long: only the first ${Math.round(maxPageBytes / 1024 / 1024) || `${Math.round(maxPageBytes / 1024)} K`}${maxPageBytes >= 1024 * 1024 ? ' MB' : 'B'} read (${pathsOf(cut)})`);
  if (result.notRead) parts.push(`${plural(result.notRead, 'more page')} not read: ${result.deadlineReached ? 'the crawl ran out of time' : `the budget of ${plural(result.pages.length, 'page')} was reached`}`);
  else if (result.deadlineReached) parts.push('the crawl ran out of time');
  return parts.length ? `${parts.join('; ')}.` : '';
}

/** A refresh that could not produce passages: its message is what the owner reads. */
class RefreshFailure extends Error {}

interface Read {
  chunks: Chunk[];
  pageCount: number;
  notes: string;
}

async function readSource(source: SourceRow, deps: RefreshDeps): Promise<Read> {
  if (source.kind === 'website') {
    const result = await crawlSite(source.url ?? '', {
      policy: deps.policy,
      maxPages: sourceSettings.maxPages,
      maxPageBytes: sourceSettings.maxPageBytes,
      delayMs: sourceSettings.crawlDelayMs,
      deadlineMs: sourceSettings.crawlDeadlineMs,
    });
    const notes = crawlSummary(result, sourceSettings.maxPageBytes);
    if (!result.pages.length) throw new RefreshFailure(`No page of the site could be read${notes ? `: ${notes}` : '.'}`);
    const chunks = result.pages.flatMap((p) => chunkDocument(p.document));
    return { chunks, pageCount: result.pages.length, notes };
  }
  if (!source.filePath) throw new RefreshFailure('The file of this source is missing: upload it again.');
  // Through the storage backend (local folder or S3 bucket) the uploads were saved to.
  const bytes = await storageAt(deps.storageRoot)
    .read(source.filePath)
    .catch(() => undefined);
  if (!bytes) throw new RefreshFailure('The file of this source is missing: upload it again.');
  if (source.kind === 'faq') {
    const rows = parseFaqCsv(new TextDecoder('utf-8').decode(bytes));
    return { chunks: chunkFaq(rows, source.name), pageCount: 1, notes: '' };
  }
  const ext = source.filePath.slice(source.filePath.lastIndexOf('.') + 1).toLowerCase() as DocumentExtension;
  if (!DOCUMENT_EXTENSIONS.includes(ext)) throw new RefreshFailure('This kind of file cannot be read.');
  const doc = await fileToDocument(bytes, ext, source.name);
  const chunks = chunkDocument(doc);
  if (!chunks.length) throw new RefreshFailure(ext === 'pdf' ? 'The document has no text to read (a scanned PDF has only pictures of text).' : 'The document has no text to read.');
  return { chunks, pageCount: doc.pages ?? 1, notes: '' };
}

export interface RefreshDeps {
  db: Db;
  storageRoot: string;
  policy: OutboundPolicy;
  log?: { warn: (obj: object, msg: string) => void };
}

const passageKey = (p: { url: string | null; question: string | null; text: string }) => JSON.stringify([p.url, p.question, p.text]);

/**
 * Makes the source's passages what it says now. A passage whose words did not change keeps its
 * row (its id, so answers keep citing it; its feedback weight, counts and vector); the others are
 * removed or added. Called in the refresh's transaction.
 */
export async function replacePassages(tx: Tx, accountId: string, sourceId: string, chunks: Chunk[]): Promise<void> {
  const old = await tx
    .select({ id: aiPassages.id, url: aiPassages.url, question: aiPassages.question, text: aiPassages.text, title: aiPassages.title, heading: aiPassages.heading, position: aiPassages.position })
    .from(aiPassages)
    .where(eq(aiPassages.sourceId, sourceId));
  // The same words may stand twice in a source (a repeated block): each old row is matched once.
  const byKey = new Map<string, (typeof old)[number][]>();
  for (const p of old) byKey.set(passageKey(p), [...(byKey.get(passageKey(p)) ?? []), p]);
  const fresh: (typeof aiPassages.$inferInsert)[] = [];
  const moved: { id: number; position: number; title: string; heading: string }[] = [];
  chunks.forEach((c, position) => {
    const title = c.title.slice(0, 500);
    const heading = c.heading.slice(0, 500);
    const key = passageKey(c);
    const same = byKey.get(key)?.shift();
    if (!same) {
      fresh.push({ accountId, sourceId, url: c.url, title, heading, question: c.question, text: c.text, position });
      return;
    }
    if (same.position !== position || same.title !== title || same.heading !== heading) moved.push({ id: same.id, position, title, heading });
  });
  const gone = [...byKey.values()].flat().map((p) => p.id);
  for (let i = 0; i < gone.length; i += 1000) await tx.delete(aiPassages).where(inArray(aiPassages.id, gone.slice(i, i + 1000)));
  // Moved rows in one statement per thousand (a page inserted near the top moves every row after it).
  for (let i = 0; i < moved.length; i += 1000) {
    const batch = JSON.stringify(moved.slice(i, i + 1000));
    await tx.execute(sql`
      update ${aiPassages} as p
         set "position" = m."position", title = m.title, heading = m.heading, rev = nextval('ai_passages_rev_seq')
        from jsonb_to_recordset(${batch}::jsonb) as m(id bigint, "position" integer, title text, heading text)
       where p.id = m.id`);
  }
  for (let i = 0; i < fresh.length; i += 500) await tx.insert(aiPassages).values(fresh.slice(i, i + 500));
}

/**
 * Refreshes one source of the account: its passages are replaced by what it says now, or, when
 * it cannot be read, kept as they were and the source marked failed with the reason. Returns
 * when it should run next (websites), null otherwise or when the source is gone.
 */
export async function refreshSource(deps: RefreshDeps, accountId: string, sourceId: string, now = new Date()): Promise<Date | null> {
  const { db } = deps;
  const [current] = await db
    .select({ status: aiSources.status, kind: aiSources.kind })
    .from(aiSources)
    .where(and(eq(aiSources.id, sourceId), eq(aiSources.accountId, accountId)));
  if (!current) return null; // removed since
  // A website's daily refresh (not one the owner queued: status 'queued') waits while the account
  // is without the assistant's plan; its passages stay.
  if (current.kind === 'website' && current.status !== 'queued' && !(await hasProfessional(db, accountId, now))) {
    const next = new Date(now.getTime() + sourceSettings.refreshEveryMs);
    await db.update(aiSources).set({ nextRefreshAt: next }).where(eq(aiSources.id, sourceId));
    return next;
  }
  const [source] = await db
    .update(aiSources)
    .set({ status: 'refreshing', updatedAt: now })
    .where(and(eq(aiSources.id, sourceId), eq(aiSources.accountId, accountId)))
    .returning();
  if (!source) return null; // removed since
  const nextAt = source.kind === 'website' ? new Date(now.getTime() + sourceSettings.refreshEveryMs) : null;
  try {
    const read = await readSource(source, deps);
    const done = new Date();
    await db.transaction(async (tx) => {
      // The account's passages of its other sources, against its limit: under a transaction-scoped
      // advisory lock on the account, so two refreshes of the account count one after the other;
      // the source row is locked too, so a removal cannot interleave.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`parley:ai-sources:${accountId}`}, 0))`);
      const [still] = await tx.select({ id: aiSources.id }).from(aiSources).where(eq(aiSources.id, sourceId)).for('update');
      if (!still) return;
      const [others] = await tx
        .select({ n: sql<number>`coalesce(sum(${aiSources.passageCount}), 0)::int` })
        .from(aiSources)
        .where(and(eq(aiSources.accountId, accountId), ne(aiSources.id, sourceId)));
      const room = sourceSettings.maxPassagesPerAccount - (others?.n ?? 0);
      if (read.chunks.length > room) {
        throw new RefreshFailure(
          `This source has ${read.chunks.length.toLocaleString('en')} passages, more than the ${Math.max(0, room).toLocaleString('en')} left of the account's ${sourceSettings.maxPassagesPerAccount.toLocaleString('en')}: remove another source first.`,
        );
      }
      await replacePassages(tx, accountId, sourceId, read.chunks);
      await tx
        .update(aiSources)
        .set({
          status: 'ready',
          pageCount: read.pageCount,
          passageCount: read.chunks.length,
          error: read.notes || null,
          lastRefreshedAt: done,
          nextRefreshAt: nextAt,
          updatedAt: done,
        })
        .where(eq(aiSources.id, sourceId));
    });
  } catch (e) {
    const known = e instanceof RefreshFailure || e instanceof CrawlError || e instanceof SourceFormatError;
    if (!known) deps.log?.warn({ err: e, sourceId }, 'source refresh failed');
    const message = known ? (e as Error).message : 'The source could not be read. It is tried again at the next refresh.';
    await db
      .update(aiSources)
      .set({ status: 'failed', error: message.slice(0, 2000), nextRefreshAt: nextAt, updatedAt: new Date() })
      .where(eq(aiSources.id, sourceId));
  }
  return nextAt;
}

const refreshPayload = z.object({ accountId: z.uuid(), sourceId: z.uuid() });

/** Websites whose refresh is this late have lost their job (a queue emptied by hand, a restore): the sweep queues them again. */
const OVERDUE_MS = 30 * 60_000;
const SWEEP_EVERY_MS = 60 * 60_000;
export const SWEEP_JOB = 'ai.sourcesDue';
export const SWEEP_KEY = 'ai.sourcesDue';

/**
 * Queues the refresh of every website more than OVERDUE_MS past its time (through the outbox, as
 * app.jobs does; a source whose job is pending keeps it: same dedupe key). Returns how many.
 */
export async function enqueueDueSources(db: Db, now = new Date()): Promise<number> {
  const due = await db
    .select({ id: aiSources.id, accountId: aiSources.accountId })
    .from(aiSources)
    .where(and(isNotNull(aiSources.nextRefreshAt), lte(aiSources.nextRefreshAt, new Date(now.getTime() - OVERDUE_MS))))
    .orderBy(asc(aiSources.nextRefreshAt))
    .limit(500);
  return writeOutbox(
    db,
    // The outbox entry app.jobs.enqueue writes (jobs/queue.ts is not imported: it imports the registry, which imports this).
    due.map((s) => ({ topic: JOB_TOPIC, name: SOURCE_JOB, payload: refreshPayload.parse({ accountId: s.accountId, sourceId: s.id }), dedupeKey: sourceJobKey(s.id) })),
  );
}

/** Starts the hourly sweep if it is not running yet (called when a website source is added). */
export async function startSourcesSweep(jobs: JobQueue): Promise<void> {
  await jobs.enqueue(SWEEP_JOB, {}, { dedupeKey: SWEEP_KEY, delayMs: SWEEP_EVERY_MS });
}

export const sourceJobs = [
  defineJob({
    name: SOURCE_JOB,
    schema: refreshPayload,
    async handle(p, ctx: JobContext) {
      const nextAt = await refreshSource({ db: ctx.db, storageRoot: ctx.storageRoot, policy: ctx.settings.webhooks.outbound, log: ctx.log }, p.accountId, p.sourceId);
      // A website's next refresh is this same job, deferred (it keeps its dedupe key).
      if (nextAt) throw new DeferJob(nextAt.getTime());
    },
  }),
  defineJob({
    name: SWEEP_JOB,
    schema: z.object({}),
    async handle(_p, ctx: JobContext) {
      const queued = await enqueueDueSources(ctx.db);
      if (queued) ctx.log.info({ queued }, 'overdue source refreshes queued');
      throw new DeferJob(Date.now() + SWEEP_EVERY_MS);
    },
  }),
] as const;
