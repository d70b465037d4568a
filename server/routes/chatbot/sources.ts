import { and, asc, count, desc, eq, gt, lt, or, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  type AiPassageDto,
  aiSourceUrlSchema,
  SOURCE_FILE_MAX_BYTES,
  SOURCE_FILE_REQUIRED,
  SOURCE_FILE_TOO_LARGE,
  SOURCE_FILE_TYPES,
} from '@parley/shared';
import { parseFaqCsv, SourceFormatError } from '../../ai/sources/extract.js';
import { presentSource, scheduleRefresh, sourceJobKey, sourceSettings, startSourcesSweep } from '../../ai/sources/ingest.js';
import { assertAssistantPlan } from '../../billing/limits.js';
import { aiPassages, aiSources } from '../../db/schema.js';
import { HttpError, notFound } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { readForm } from '../../plugins/uploads.js';
import { authorize } from '../../policies/index.js';
import { audit } from '../../services/audit.js';
import { decodeKey, encodeKey, PAGE_DEFAULT, pageQuery } from '../../presenters/page.js';
import { aiPassageDtoSchema, aiSourceDtoSchema, okSchema, pageSchema } from '../../presenters/dtoSchemas.js';
import { checkUrl } from '../../services/outbound.js';
import type { Actor } from '../../policies/actor.js';

/**
 * Issue 17: the assistant's knowledge sources, Owner/Admin only ('ai.manage'): a website (crawled
 * within its host), documents (PDF, DOCX, Markdown, TXT) and FAQ files (CSV of question,answer).
 * Adding one queues its refresh (ai/sources/ingest.ts); removing one removes its passages and
 * its stored file; its passages can be read page by page.
 */

const secured = { security: [{ bearer: [] }] };
const tags = ['chatbot'];

export const SOURCE_NOT_FOUND = 'Source not found';
export const sourcesFull = (max: number) => `You can have at most ${max} sources: remove one before adding another.`;
export const passagesFull = (max: number) => `The assistant already keeps ${max.toLocaleString('en')} passages, the most an account may: remove a source before adding another.`;
export const sameSite = (host: string) => `${host} is already a source: refresh it instead of adding it again.`;

const idParams = z.object({ id: z.string() });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;


const bareHost = (u: URL) => `${u.hostname.toLowerCase().replace(/^www\./, '')}${u.port ? `:${u.port}` : ''}`;

/** The answers' shapes, as documented (OpenAPI) and checked when sent. */
const oneSource = okSchema(aiSourceDtoSchema);
const pagedSources = pageSchema(aiSourceDtoSchema).extend({ total: z.number() });
const pagedPassages = pageSchema(aiPassageDtoSchema).extend({ total: z.number() });
const removed = z.object({ success: z.boolean() });

export default async function sourceRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  /** Owner/Admin, and (to add or refresh) the plan that has the assistant. */
  const manage = async (actor: Actor, change: boolean) => {
    authorize(actor, 'ai.manage');
    if (change) await assertAssistantPlan(app.db, actor.accountId);
  };

  const findSource = async (actor: Actor, id: string) => {
    if (!UUID.test(id)) throw notFound(SOURCE_NOT_FOUND);
    const [row] = await app.db
      .select()
      .from(aiSources)
      .where(and(eq(aiSources.id, id), eq(aiSources.accountId, actor.accountId)));
    if (!row) throw notFound(SOURCE_NOT_FOUND);
    return row;
  };

  /** Before adding: the account's limits on sources and passages. */
  const checkRoom = async (accountId: string) => {
    const [n] = await app.db
      .select({ sources: count(), passages: sql<number>`coalesce(sum(${aiSources.passageCount}), 0)::int` })
      .from(aiSources)
      .where(eq(aiSources.accountId, accountId));
    if ((n?.sources ?? 0) >= sourceSettings.maxSourcesPerAccount) throw new HttpError(422, sourcesFull(sourceSettings.maxSourcesPerAccount));
    if ((n?.passages ?? 0) >= sourceSettings.maxPassagesPerAccount) throw new HttpError(422, passagesFull(sourceSettings.maxPassagesPerAccount));
  };

  /** The account's sources, newest first (limit + cursor, total). */
  app.get('/chatbot/sources', { schema: { tags, querystring: pageQuery, response: { 200: pagedSources }, ...secured }, onRequest: authenticate }, async (request) => {
    const { actor } = request;
    await manage(actor, false);
    const q = request.query;
    const limit = q.limit ?? PAGE_DEFAULT;
    const after = q.cursor === undefined ? undefined : (decodeKey(q.cursor, 'ts') as [string, string]);
    const mine = eq(aiSources.accountId, actor.accountId);
    const rows = await app.db
      .select()
      .from(aiSources)
      .where(
        after
          ? and(mine, or(lt(aiSources.createdAt, new Date(after[0]!)), and(eq(aiSources.createdAt, new Date(after[0]!)), lt(aiSources.id, after[1]!))))
          : mine,
      )
      .orderBy(desc(aiSources.createdAt), desc(aiSources.id))
      .limit(limit + 1);
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    const [total] = await app.db.select({ n: count() }).from(aiSources).where(mine);
    const last = page.at(-1);
    return {
      message: 'success',
      data: page.map(presentSource),
      has_more: more,
      next_cursor: more && last ? encodeKey([last.createdAt.toISOString(), last.id]) : null,
      total: total?.n ?? 0,
    };
  });

  /** Adds the website at `url` (crawled within its host) and queues its first refresh. */
  app.post('/chatbot/sources', { schema: { tags, body: aiSourceUrlSchema, response: { 201: oneSource }, ...secured }, onRequest: authenticate }, async (request, reply) => {
    const { actor } = request;
    await manage(actor, true);
    const checked = checkUrl(request.body.url, app.config.outbound);
    if (!(checked instanceof URL)) throw new HttpError(422, checked.refused, { url: [checked.refused] });
    checked.hash = '';
    await checkRoom(actor.accountId);
    const host = bareHost(checked);
    const sites = await app.db
      .select({ url: aiSources.url })
      .from(aiSources)
      .where(and(eq(aiSources.accountId, actor.accountId), eq(aiSources.kind, 'website')));
    if (sites.some((s) => s.url && bareHost(new URL(s.url)) === host)) throw new HttpError(409, sameSite(checked.hostname), { url: [sameSite(checked.hostname)] });
    const source = await app.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(aiSources)
        .values({ accountId: actor.accountId, kind: 'website', name: checked.host, url: checked.toString(), createdBy: actor.id })
        .returning();
      await audit(request, 'ai_source.added', `ai_source:${row!.id}`, { kind: 'website', url: row!.url }, tx);
      return row!;
    });
    await scheduleRefresh(app.jobs, source);
    await startSourcesSweep(app.jobs);
    return reply.status(201).send({ message: 'success', data: presentSource(source) });
  });

  /** Uploads a document (.pdf, .docx, .md, .txt) or an FAQ file (.csv) and queues its reading. */
  app.post('/chatbot/sources/upload', { schema: { tags, consumes: ['multipart/form-data'], response: { 201: oneSource }, ...secured }, onRequest: authenticate }, async (request, reply) => {
    const { actor } = request;
    await manage(actor, true);
    await checkRoom(actor.accountId);
    const form = await readForm(request, {
      fileField: 'file',
      documentField: 'file',
      maxBytes: SOURCE_FILE_MAX_BYTES,
      tooLargeMessage: SOURCE_FILE_TOO_LARGE,
      documentTooLargeMessage: SOURCE_FILE_TOO_LARGE,
    });
    const file = form.file;
    if (!file) throw new HttpError(422, SOURCE_FILE_REQUIRED, { file: [SOURCE_FILE_REQUIRED] });
    let ext = file.ext;
    let name = file.name;
    // Text is sniffed as .txt (or .csv by its name); a Markdown file keeps its own extension.
    const markdown = /^(.+\.(md|markdown))\.txt$/i.exec(name);
    if (ext === 'txt' && markdown) {
      ext = 'md';
      name = markdown[1]!;
    }
    if (!['pdf', 'docx', 'md', 'txt', 'csv'].includes(ext)) throw new HttpError(415, SOURCE_FILE_TYPES, { file: [SOURCE_FILE_TYPES] });
    const kind = ext === 'csv' ? 'faq' : 'document';
    if (kind === 'faq') {
      try {
        parseFaqCsv(file.bytes.toString('utf8'));
      } catch (e) {
        if (e instanceof SourceFormatError) throw new HttpError(422, e.message, { file: [e.message] });
        throw e;
      }
    }
    const filePath = await app.storage.save(actor.accountId, file.bytes, ext, { document: true });
    let source: typeof aiSources.$inferSelect;
    try {
      source = await app.db.transaction(async (tx) => {
        const [row] = await tx.insert(aiSources).values({ accountId: actor.accountId, kind, name, filePath, createdBy: actor.id }).returning();
        await audit(request, 'ai_source.added', `ai_source:${row!.id}`, { kind, name }, tx);
        return row!;
      });
    } catch (e) {
      await app.storage.remove(filePath).catch(() => {});
      throw e;
    }
    await scheduleRefresh(app.jobs, source);
    return reply.status(201).send({ message: 'success', data: presentSource(source) });
  });

  /** Reads the source again now. */
  app.post('/chatbot/sources/:id/refresh', { schema: { tags, params: idParams, response: { 202: oneSource }, ...secured }, onRequest: authenticate }, async (request, reply) => {
    const { actor } = request;
    await manage(actor, true);
    const current = await findSource(actor, request.params.id);
    const [source] = await app.db.update(aiSources).set({ status: 'queued', updatedAt: new Date() }).where(eq(aiSources.id, current.id)).returning();
    await scheduleRefresh(app.jobs, current);
    return reply.status(202).send({ message: 'success', data: presentSource(source ?? current) });
  });

  /** Removes the source, what was learned from it (its passages) and its stored file. */
  app.delete('/chatbot/sources/:id', { schema: { tags, params: idParams, response: { 200: removed }, ...secured }, onRequest: authenticate }, async (request) => {
    const { actor } = request;
    await manage(actor, false);
    const source = await findSource(actor, request.params.id);
    await app.db.transaction(async (tx) => {
      await tx.delete(aiSources).where(eq(aiSources.id, source.id));
      await audit(request, 'ai_source.removed', `ai_source:${source.id}`, { kind: source.kind, name: source.name, passages: source.passageCount }, tx);
    });
    await app.jobs.cancel(sourceJobKey(source.id));
    if (source.filePath) await app.storage.remove(source.filePath);
    return { success: true };
  });

  /** What the assistant learned from a source, in reading order (limit + cursor, total). */
  app.get('/chatbot/sources/:id/passages', { schema: { tags, params: idParams, querystring: pageQuery, response: { 200: pagedPassages }, ...secured }, onRequest: authenticate }, async (request) => {
    const { actor } = request;
    await manage(actor, false);
    const source = await findSource(actor, request.params.id);
    const q = request.query;
    const limit = q.limit ?? PAGE_DEFAULT;
    const after = q.cursor === undefined ? undefined : (decodeKey(q.cursor, 'nn') as [number, number]);
    const mine = eq(aiPassages.sourceId, source.id);
    const rows = await app.db
      .select()
      .from(aiPassages)
      .where(
        after
          ? and(mine, or(gt(aiPassages.position, Number(after[0])), and(eq(aiPassages.position, Number(after[0])), gt(aiPassages.id, Number(after[1])))))
          : mine,
      )
      .orderBy(asc(aiPassages.position), asc(aiPassages.id))
      .limit(limit + 1);
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const data: AiPassageDto[] = page.map((p) => ({
      id: p.id,
      title: p.title,
      url: p.url,
      heading: p.heading,
      question: p.question,
      text: p.text,
      position: p.position,
      uses: p.uses,
      helpful: p.helpful,
      not_helpful: p.notHelpful,
    }));
    return {
      message: 'success',
      data,
      has_more: more,
      next_cursor: more && last ? encodeKey([last.position, last.id]) : null,
      total: source.passageCount,
    };
  });
}
