import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueDueSources, refreshSource, sourceJobKey, sourceSettings } from '../../ai/sources/ingest.js';
import { docxWith, pdfWith } from '../../ai/sources/testDocs.js';
import { startTestSite, type TestSite } from '../../ai/sources/testSite.js';
import { sweepAccount } from '../../storage/cleanup.js';
import { aiPassages, aiSources, auditLog, jobs, outbox, storedFiles, subscriptions } from '../../db/schema.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { callMultipart, TINY_PNG } from '../../test/multipart.js';

/**
 * Issue 17, knowledge from the business's own sources: an owner adds the site's URL and uploads
 * an FAQ and documents; the refresh job (run by the in-process runner) crawls the site served
 * by the test on 127.0.0.1 and stores passages with their titles and links; refreshing replaces
 * them; removing a source removes its passages and its stored file.
 */

let t: TestApp;
let site: TestSite;
const saved = { ...sourceSettings };
beforeAll(async () => {
  // The SSRF guard lets the test's loopback site through, as the operator setting does.
  t = await createTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true' });
  site = await startTestSite();
  Object.assign(sourceSettings, { crawlDelayMs: 0, maxPageBytes: 64 * 1024 });
});
afterAll(async () => {
  Object.assign(sourceSettings, saved);
  await site.close();
  await t.close();
});

const db = () => t.database.db;
const list = (token: string, query = '') => call(t.app, 'GET', `/api/chatbot/sources${query}`, { token });
const addSite = (token: string, url: string) => call(t.app, 'POST', '/api/chatbot/sources', { token, body: { url } });
const upload = (token: string, filename: string, data: string | Buffer, contentType = 'text/plain') =>
  callMultipart(t.app, 'POST', '/api/chatbot/sources/upload', { token, files: { file: { filename, contentType, data: Buffer.from(data) } } });
const passages = (token: string, id: string, query = '') => call(t.app, 'GET', `/api/chatbot/sources/${id}/passages${query}`, { token });

/** Waits (bounded) for the refresh job to finish with the source; returns its DTO. */
async function settled(token: string, id: string): Promise<Record<string, any>> {
  const until = Date.now() + 20_000;
  for (;;) {
    const [row] = await db().select({ status: aiSources.status }).from(aiSources).where(eq(aiSources.id, id));
    if (row && (row.status === 'ready' || row.status === 'failed')) break;
    if (Date.now() > until) throw new Error(`source ${id} still ${row?.status}`);
    await new Promise((r) => setTimeout(r, 30));
  }
  const all: Record<string, any>[] = (await list(token, '?limit=100')).body.data;
  return all.find((s) => s.id === id)!;
}

const storedCount = async (id: string) => (await db().select().from(aiPassages).where(eq(aiPassages.sourceId, id))).length;

describe('a website source', () => {
  let owner: TestOwner;
  let id: string;
  beforeAll(async () => {
    owner = await buildAccount(t.app);
  });

  it('is crawled by the job: pages read, pages skipped with the reason, passages with titles and links', async () => {
    const res = await addSite(owner.token, `${site.origin}/`);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ kind: 'website', name: new URL(site.origin).host, url: `${site.origin}/`, status: 'queued', page_count: 0, passage_count: 0, last_refreshed_at: null, error: null });
    id = res.body.data.id;

    const source = await settled(owner.token, id);
    expect(source.status).toBe('ready');
    expect(source.page_count).toBe(5); // /, hours, prices, about (a link only), the huge page cut at the cap
    expect(source.passage_count).toBe(await storedCount(id));
    expect(source.error).toContain('1 page skipped: robots.txt disallows /private/staff.html');
    expect(source.error).toContain('redirect loop (/loop-a)');
    expect(source.error).toContain('2 files skipped: not an HTML page');
    expect(source.error).toContain('1 page too long: only the first 64 KB read (/huge.html)');
    expect(source.error).toContain('marked noindex (/secret.html)');
    expect(source.error).not.toContain('other.example');
    expect(Date.parse(source.last_refreshed_at)).toBeGreaterThan(Date.now() - 60_000);
    // A website is read again every day.
    expect(Date.parse(source.next_refresh_at) - Date.parse(source.last_refreshed_at)).toBeGreaterThan(86_000_000);

    const body = (await passages(owner.token, id, '?limit=100')).body;
    expect(body.total).toBe(source.passage_count);
    const holidays = body.data.find((p: any) => p.heading === 'Holidays');
    expect(holidays).toMatchObject({ title: 'Opening hours | Corner Bakery', url: `${site.origin}/hours.html`, text: 'Closed on public holidays.', question: null, uses: 0, helpful: 0, not_helpful: 0 });
    const texts = body.data.map((p: any) => p.text).join('\n');
    expect(texts).toContain('Family run since 1982');
    expect(texts).not.toContain('Staff rota');
    expect(texts).not.toContain('Footer text');
  });

  it('is refused twice for the same host, with a clear message', async () => {
    const res = await addSite(owner.token, `${site.origin.replace('http:', 'https:')}/prices.html`);
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(`${new URL(site.origin).hostname} is already a source: refresh it instead of adding it again.`);
    expect((await list(owner.token)).body.total).toBe(1);
  });

  it('refresh replaces its passages with what the site says now; an unchanged passage keeps its row, feedback and citations', async () => {
    const before = (await passages(owner.token, id, '?limit=100')).body.data as { id: number; text: string }[];
    const unchanged = before.find((p) => !p.text.includes('euros'))!;
    const priced = before.filter((p) => p.text.includes('costs 4 euros'));
    expect(priced.length).toBeGreaterThan(0);
    // The team's feedback on a passage the site does not change.
    await db().update(aiPassages).set({ weight: 1.45, helpful: 3, uses: 7 }).where(eq(aiPassages.id, unchanged.id));
    site.pages.set('/prices.html', '<title>Prices | Corner Bakery</title><h1>Prices</h1><p>A sourdough loaf now costs 5 euros.</p>');
    const res = await call(t.app, 'POST', `/api/chatbot/sources/${id}/refresh`, { token: owner.token });
    expect(res.status).toBe(202);
    expect(res.body.data.status).toBe('queued');
    const source = await settled(owner.token, id);
    expect(source.status).toBe('ready');
    const after = (await passages(owner.token, id, '?limit=100')).body.data as { id: number; text: string }[];
    const texts = after.map((p) => p.text).join('\n');
    expect(texts).toContain('now costs 5 euros');
    expect(texts).not.toContain('costs 4 euros');
    expect(after.length).toBe(await storedCount(id));
    // What changed is new rows; what did not keeps its row and what was learned about it.
    expect(after.some((p) => priced.some((b) => b.id === p.id))).toBe(false);
    const [kept] = await db().select().from(aiPassages).where(eq(aiPassages.id, unchanged.id));
    expect(kept).toMatchObject({ text: unchanged.text, weight: 1.45, helpful: 3, uses: 7 });
    site.pages.delete('/prices.html');
  });

  it('pages its passages with limit and cursor', async () => {
    const first = (await passages(owner.token, id, '?limit=2')).body;
    expect(first.data).toHaveLength(2);
    expect(first.next_cursor).toBeTruthy();
    const second = (await passages(owner.token, id, `?limit=2&cursor=${first.next_cursor}`)).body;
    expect(second.data[0].position).toBeGreaterThan(first.data[1].position);
    expect((await passages(owner.token, id, '?cursor=nonsense')).status).toBe(422);
  });

  it('a site that cannot be reached fails with the reason, and nothing is learned', async () => {
    const other = await buildAccount(t.app);
    const res = await addSite(other.token, 'http://127.0.0.1:9/');
    const source = await settled(other.token, res.body.data.id);
    expect(source).toMatchObject({ status: 'failed', passage_count: 0 });
    expect(source.error).toMatch(/^The site could not be reached/);
  });

  it('refuses what is not a website address', async () => {
    for (const url of ['ftp://example.com/', 'http://', '']) {
      const res = await addSite(owner.token, url);
      expect(res.status).toBe(422);
      expect(res.body.errors.url).toBeTruthy();
    }
  });
});

describe('documents and FAQ files', () => {
  let owner: TestOwner;
  beforeAll(async () => {
    owner = await buildAccount(t.app);
  });

  it('an FAQ file gives one passage per question; removing it removes its passages and its file', async () => {
    const res = await upload(owner.token, 'faq.csv', 'question,answer\n"Do you deliver, and where?","Yes, within 5 km of the shop."\nAre you open on Sunday?,No.\n', 'text/csv');
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ kind: 'faq', name: 'faq.csv', url: null, status: 'queued', next_refresh_at: null });
    const id = res.body.data.id;
    const source = await settled(owner.token, id);
    expect(source).toMatchObject({ status: 'ready', passage_count: 2, page_count: 1, error: null, next_refresh_at: null });
    const data = (await passages(owner.token, id)).body.data;
    expect(data.map((p: any) => [p.question, p.text, p.title])).toEqual([
      ['Do you deliver, and where?', 'Yes, within 5 km of the shop.', 'faq.csv'],
      ['Are you open on Sunday?', 'No.', 'faq.csv'],
    ]);

    // Stored like every upload: on disk, and counted in the account's storage.
    const [row] = await db().select().from(aiSources).where(eq(aiSources.id, id));
    const file = path.join(t.config.uploads.root, row!.filePath!);
    expect(fs.existsSync(file)).toBe(true);
    expect(await db().select().from(storedFiles).where(eq(storedFiles.path, row!.filePath!))).toHaveLength(1);

    const removed = await call(t.app, 'DELETE', `/api/chatbot/sources/${id}`, { token: owner.token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true });
    expect(await storedCount(id)).toBe(0);
    expect(fs.existsSync(file)).toBe(false);
    expect(await db().select().from(storedFiles).where(eq(storedFiles.path, row!.filePath!))).toHaveLength(0);
    expect((await list(owner.token)).body.data.find((s: any) => s.id === id)).toBeUndefined();
    const actions = (await db().select().from(auditLog).where(eq(auditLog.target, `ai_source:${id}`))).map((a) => a.action).sort();
    expect(actions).toEqual(['ai_source.added', 'ai_source.removed']);
  });

  it('a Markdown document keeps its headings; its name is what answers cite', async () => {
    const res = await upload(owner.token, 'returns.md', '# Returns\n\nSend items back within **30 days**.\n\n## Refunds\n\nRefunds reach your card in 5 days.\n');
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ kind: 'document', name: 'returns.md' });
    const source = await settled(owner.token, res.body.data.id);
    expect(source.status).toBe('ready');
    const data = (await passages(owner.token, source.id)).body.data;
    expect(data.map((p: any) => [p.title, p.heading, p.text, p.url])).toEqual([
      ['returns.md', 'Returns', 'Send items back within 30 days.', null],
      ['returns.md', 'Refunds', 'Refunds reach your card in 5 days.', null],
    ]);
  });

  it('PDF and Word documents are read by the job; the storage sweep keeps the files their sources hold', async () => {
    const pdf = await upload(owner.token, 'Terms.pdf', pdfWith(['Refunds are paid within 14 days.', 'Gift cards never expire.']), 'application/pdf');
    expect(pdf.status).toBe(201);
    expect(pdf.body.data).toMatchObject({ kind: 'document', name: 'Terms.pdf' });
    const docx = await upload(owner.token, 'policy.docx', docxWith([['Heading1', 'Returns'], ['', 'Send it back within 30 days.']]), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(docx.status).toBe(201);
    const pdfSource = await settled(owner.token, pdf.body.data.id);
    expect(pdfSource).toMatchObject({ status: 'ready', page_count: 2 });
    const pdfText = (await passages(owner.token, pdfSource.id)).body.data.map((p: any) => p.text).join(' ');
    expect(pdfText).toContain('Refunds are paid within 14 days.');
    expect(pdfText).toContain('Gift cards never expire.');
    const docxSource = await settled(owner.token, docx.body.data.id);
    expect(docxSource.status).toBe('ready');
    expect((await passages(owner.token, docxSource.id)).body.data.map((p: any) => [p.title, p.heading, p.text])).toEqual([['policy.docx', 'Returns', 'Send it back within 30 days.']]);

    // The upload cleanup removes files nothing refers to: a source's file is held by it.
    const swept = await sweepAccount(db(), t.config.uploads.root, owner.user.account_id, 0, new Date(Date.now() + 1000));
    const [row] = await db().select().from(aiSources).where(eq(aiSources.id, pdfSource.id));
    expect(swept.removed).not.toContain(row!.filePath);
    expect(fs.existsSync(path.join(t.config.uploads.root, row!.filePath!))).toBe(true);
    expect((await call(t.app, 'POST', `/api/chatbot/sources/${pdfSource.id}/refresh`, { token: owner.token })).status).toBe(202);
    expect((await settled(owner.token, pdfSource.id)).status).toBe('ready');
  });

  it('a malformed FAQ file or another kind of file is refused with a clear message, and nothing is added', async () => {
    const before = (await list(owner.token)).body.total;
    const bad = await upload(owner.token, 'faq.csv', 'question,answer\n"unclosed,quote\n', 'text/csv');
    expect(bad.status).toBe(422);
    expect(bad.body.message).toMatch(/^The FAQ file is not valid CSV/);
    const noHeader = await upload(owner.token, 'faq.csv', 'q,a\nx,y\n', 'text/csv');
    expect(noHeader.body.message).toBe('The FAQ file needs a first line naming its columns: question,answer');
    const image = await upload(owner.token, 'photo.png', TINY_PNG, 'image/png');
    expect(image.status).toBe(415);
    expect(image.body.message).toBe('Upload a PDF, Word (.docx), Markdown (.md) or text (.txt) document, or an FAQ file (.csv of question,answer)');
    const none = await callMultipart(t.app, 'POST', '/api/chatbot/sources/upload', { token: owner.token, fields: { x: '1' } });
    expect(none.status).toBe(422);
    expect((await list(owner.token)).body.total).toBe(before);
  });
});

describe('who may, and limits', () => {
  it('Agents get 403; another account sees 404; Starter cannot add', async () => {
    const owner = await buildAccount(t.app);
    const added = await upload(owner.token, 'notes.txt', 'We bake on Sundays too.');
    const id = added.body.data.id;
    const agent = await buildMember(t.app, owner, 'Agent');
    for (const [method, url] of [
      ['GET', '/api/chatbot/sources'],
      ['GET', `/api/chatbot/sources/${id}/passages`],
      ['POST', `/api/chatbot/sources/${id}/refresh`],
      ['DELETE', `/api/chatbot/sources/${id}`],
    ] as const) {
      const res = await call(t.app, method, url, { token: agent.token });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.message).toBe('You do not have permission to do this');
    }
    expect((await addSite(agent.token, 'https://example.com/')).status).toBe(403);
    const admin = await buildMember(t.app, owner, 'Admin');
    expect((await list(admin.token)).body.total).toBe(1);

    const stranger = await buildAccount(t.app);
    for (const [method, url] of [
      ['GET', `/api/chatbot/sources/${id}/passages`],
      ['POST', `/api/chatbot/sources/${id}/refresh`],
      ['DELETE', `/api/chatbot/sources/${id}`],
      ['DELETE', '/api/chatbot/sources/not-a-uuid'],
    ] as const) {
      const res = await call(t.app, method, url, { token: stranger.token });
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.message).toBe('Source not found');
    }
    expect((await list(stranger.token)).body).toMatchObject({ data: [], total: 0, next_cursor: null });
    await settled(owner.token, id);

    await db().update(subscriptions).set({ expiryDate: new Date(Date.now() - 1000) }).where(eq(subscriptions.accountId, owner.user.account_id));
    const starter = await addSite(owner.token, 'https://example.com/');
    expect(starter.status).toBe(403);
    expect(starter.body.message).toBe('The AI assistant is part of the Professional plan. Upgrade to keep using it.');
    // Removing stays possible.
    expect((await call(t.app, 'DELETE', `/api/chatbot/sources/${id}`, { token: owner.token })).status).toBe(200);
  });

  it('at most so many sources and passages per account, with clear errors', async () => {
    const owner = await buildAccount(t.app);
    Object.assign(sourceSettings, { maxSourcesPerAccount: 2, maxPassagesPerAccount: 3 });
    try {
      const one = await upload(owner.token, 'a.txt', 'First paragraph.\n\nSecond paragraph.');
      expect((await settled(owner.token, one.body.data.id)).passage_count).toBe(1);
      // An FAQ of three rows does not fit in the two passages left: it fails, nothing is stored.
      const faq = await upload(owner.token, 'faq.csv', 'question,answer\nA?,a\nB?,b\nC?,c\n', 'text/csv');
      const failed = await settled(owner.token, faq.body.data.id);
      expect(failed).toMatchObject({ status: 'failed', passage_count: 0 });
      expect(failed.error).toBe("This source has 3 passages, more than the 2 left of the account's 3: remove another source first.");
      expect(await storedCount(faq.body.data.id)).toBe(0);
      const third = await upload(owner.token, 'c.txt', 'More.');
      expect(third.status).toBe(422);
      expect(third.body.message).toBe('You can have at most 2 sources: remove one before adding another.');
      const page = await list(owner.token, '?limit=1');
      expect(page.body).toMatchObject({ total: 2, has_more: true });
      const rest = await list(owner.token, `?limit=1&cursor=${page.body.next_cursor}`);
      expect(rest.body.data[0].id).not.toBe(page.body.data[0].id);
      expect(rest.body.next_cursor).toBeNull();
    } finally {
      Object.assign(sourceSettings, { maxSourcesPerAccount: saved.maxSourcesPerAccount, maxPassagesPerAccount: saved.maxPassagesPerAccount });
    }
  });
});

describe('the assistant answers from what it learned', () => {
  it('an owner pastes the site URL and uploads an FAQ; answers cite the page or the file, and stop when the source is removed', async () => {
    const owner = await buildAccount(t.app);
    const siteSource = (await addSite(owner.token, `${site.origin}/`)).body.data;
    const faq = (await upload(owner.token, 'faq.csv', 'question,answer\nDo you make wedding cakes?,"Yes, order a wedding cake at least six weeks ahead."\n', 'text/csv')).body.data;
    expect((await settled(owner.token, siteSource.id)).status).toBe('ready');
    expect((await settled(owner.token, faq.id)).status).toBe('ready');

    const ask = async (message: string) => (await callMultipart(t.app, 'POST', '/api/chatbot/message', { token: owner.token, fields: { message } })).body.data[1];
    const hours = await ask('What are your opening hours?');
    expect(hours.content).toContain('Monday to Saturday from 7 am to 6 pm');
    expect(hours.sources).toEqual([expect.objectContaining({ title: 'Opening hours | Corner Bakery', url: `${site.origin}/hours.html`, source_id: siteSource.id })]);
    const cakes = await ask('Do you make wedding cakes?');
    expect(cakes.content).toContain('six weeks ahead');
    expect(cakes.sources).toEqual([expect.objectContaining({ title: 'faq.csv', url: null, source_id: faq.id })]);

    expect((await call(t.app, 'DELETE', `/api/chatbot/sources/${faq.id}`, { token: owner.token })).status).toBe(200);
    const again = await ask('Do you make wedding cakes?');
    expect(again.content).not.toContain('six weeks ahead');
  });
});

describe('the schedule', () => {
  it('a website whose job was lost is queued again by the sweep; without the plan its daily refresh waits', async () => {
    const owner = await buildAccount(t.app);
    const id = (await addSite(owner.token, `${site.origin}/`)).body.data.id;
    const first = await settled(owner.token, id);
    expect(first.status).toBe('ready');

    // The job is lost and the refresh is overdue: the sweep queues it, the runner refreshes.
    await t.app.jobs.cancel(sourceJobKey(id));
    await db().update(aiSources).set({ nextRefreshAt: new Date(Date.now() - 2 * 3_600_000) }).where(eq(aiSources.id, id));
    expect(await enqueueDueSources(db())).toBe(1);
    const until = Date.now() + 20_000;
    while ((await settled(owner.token, id)).last_refreshed_at === first.last_refreshed_at && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    const second = await settled(owner.token, id);
    expect(Date.parse(second.last_refreshed_at)).toBeGreaterThan(Date.parse(first.last_refreshed_at));
    // Its job is pending again (deferred to tomorrow): a sweep now joins it, no second job.
    await db().update(aiSources).set({ nextRefreshAt: new Date(Date.now() - 2 * 3_600_000) }).where(eq(aiSources.id, id));
    await enqueueDueSources(db());
    t.app.jobs.wake();
    const relayed = Date.now() + 10_000;
    while ((await db().select().from(outbox).where(eq(outbox.dedupeKey, sourceJobKey(id)))).length && Date.now() < relayed) await new Promise((r) => setTimeout(r, 30));
    const pending = await db().select().from(jobs).where(eq(jobs.dedupeKey, sourceJobKey(id)));
    expect(pending.map((j) => [j.status, j.runAt.getTime() > Date.now() + 86_000_000])).toEqual([['pending', true]]);

    // On Starter, the daily refresh does not crawl; the passages stay.
    await db().update(subscriptions).set({ expiryDate: new Date(Date.now() - 1000) }).where(eq(subscriptions.accountId, owner.user.account_id));
    const hits = site.hits.get('/hours.html');
    const next = await refreshSource({ db: db(), storageRoot: t.config.uploads.root, policy: { allowPrivate: true } }, owner.user.account_id, id);
    expect(next!.getTime()).toBeGreaterThan(Date.now() + 86_000_000);
    expect(site.hits.get('/hours.html')).toBe(hits);
    expect(await settled(owner.token, id)).toMatchObject({ status: 'ready', passage_count: second.passage_count, last_refreshed_at: second.last_refreshed_at });
  });
});
