import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { LlmConfig } from '../../config.js';
import type { Db } from '../../db/client.js';
import { aiPassages } from '../../db/schema.js';
import { RETIRE_AT } from '../knowledge.js';
import { EMBED_BATCH, embed, passageEmbeddingText } from './embeddings.js';
import { PassageIndex } from './index.js';

/**
 * Each account's passages (ai_passages, written by the sources' ingestion) in an in-memory
 * PassageIndex, refreshed like the patterns' (engine.ts indexFor): the max `rev` and the row count
 * tell whether another request or node changed them; only changed rows are read again, and a
 * lower count (a source removed or its passages replaced) rebuilds the index.
 */

const CACHE_ACCOUNTS = 200;
interface Cached {
  index: PassageIndex;
  /** Every row id read (retired ones included): compared with the table's count. */
  ids: Set<number>;
  rev: number;
  count: number;
}
const cache = new Map<string, Cached>();

async function stamp(db: Db, accountId: string): Promise<{ rev: number; count: number }> {
  const [row] = await db
    .select({ rev: sql<string>`coalesce(max(${aiPassages.rev}), 0)`, count: sql<string>`count(*)` })
    .from(aiPassages)
    .where(eq(aiPassages.accountId, accountId));
  return { rev: Number(row?.rev ?? 0), count: Number(row?.count ?? 0) };
}

/** Per account: when the embeddings endpoint last failed (no retry for a minute). */
const embedFailedAt = new Map<string, number>();
const EMBED_RETRY_MS = 60_000;
/** Passages embedded per call, so one answer never waits for a whole site. */
const EMBED_PER_CALL = EMBED_BATCH * 2;

/**
 * Stores vectors for the account's passages that have none (bounded per call; the rev bump makes
 * every node's index pick them up). Returns how many were embedded.
 */
export async function embedMissing(db: Db, accountId: string, cfg: LlmConfig): Promise<number> {
  if (Date.now() - (embedFailedAt.get(accountId) ?? 0) < EMBED_RETRY_MS) return 0;
  const rows = await db
    .select({ id: aiPassages.id, title: aiPassages.title, heading: aiPassages.heading, question: aiPassages.question, text: aiPassages.text })
    .from(aiPassages)
    .where(and(eq(aiPassages.accountId, accountId), isNull(aiPassages.embedding)))
    .orderBy(aiPassages.id)
    .limit(EMBED_PER_CALL);
  let done = 0;
  for (let i = 0; i < rows.length; i += EMBED_BATCH) {
    const batch = rows.slice(i, i + EMBED_BATCH);
    const vectors = await embed(cfg, batch.map(passageEmbeddingText));
    if (!vectors) {
      embedFailedAt.set(accountId, Date.now());
      break;
    }
    for (const [k, r] of batch.entries()) {
      await db
        .update(aiPassages)
        .set({ embedding: vectors[k]!, rev: sql`nextval('ai_passages_rev_seq')` })
        .where(and(eq(aiPassages.id, r.id), eq(aiPassages.accountId, accountId)));
    }
    done += batch.length;
  }
  return done;
}

/** The account's passage index, loaded once, then updated with only the rows changed since. */
export async function passageIndexFor(db: Db, accountId: string, embeddings?: LlmConfig): Promise<PassageIndex> {
  if (embeddings) await embedMissing(db, accountId, embeddings);
  const now = await stamp(db, accountId);
  const entry = cache.get(accountId);
  if (entry && entry.rev === now.rev && entry.count === now.count) return entry.index;
  let fresh = entry ? await load(db, accountId, entry) : undefined;
  // Rows were deleted (a source removed, or its passages replaced): the ids the index knows no
  // longer match the table's count, so rebuild from scratch.
  if (!fresh || fresh.ids.size !== now.count) fresh = await load(db, accountId);
  cache.delete(accountId);
  cache.set(accountId, { ...fresh, rev: Math.max(now.rev, fresh.rev), count: now.count });
  if (cache.size > CACHE_ACCOUNTS) cache.delete(cache.keys().next().value as string);
  return fresh.index;
}

/** Applies the rows changed since `from` (or every row) to its index. */
async function load(db: Db, accountId: string, from?: Cached): Promise<Omit<Cached, 'count'>> {
  const index = from?.index ?? new PassageIndex();
  const ids = from?.ids ?? new Set<number>();
  let rev = from?.rev ?? 0;
  const rows = await db
    .select()
    .from(aiPassages)
    .where(and(eq(aiPassages.accountId, accountId), gt(aiPassages.rev, from?.rev ?? 0)));
  for (const r of rows) {
    ids.add(r.id);
    rev = Math.max(rev, r.rev);
    // A passage the owner's feedback pushed down to the retirement weight no longer answers.
    if (r.weight <= RETIRE_AT) index.remove(r.id);
    else
      index.add({
        id: r.id,
        sourceId: r.sourceId,
        title: r.title,
        url: r.url,
        heading: r.heading,
        question: r.question,
        text: r.text,
        weight: r.weight,
        embedding: r.embedding,
      });
  }
  return { index, ids, rev };
}
