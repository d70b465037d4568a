import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_IMAGE_MAX_BYTES, DOCUMENT_TYPES, NOT_AN_ALLOWED_FILE } from '@parley/shared';
import { conversations, storedFiles } from '../../db/schema.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, call, type TestOwner } from '../../test/factories.js';
import { TINY_PNG, buildVisitor, type FilePart, postForm } from '../../test/chatFactories.js';
import { CSV, DOCX, ELF, EXE, HTML_PAGE, PDF, PLAIN_ZIP, SVG, TEXT, XLSX } from '../../test/documents.js';

let t: TestApp;
let owner: TestOwner;
beforeAll(async () => {
  t = await createTestApp();
  owner = await buildAccount(t.app);
});
afterAll(() => t.close());

const filePart = (bytes: Buffer, filename: string, contentType = 'application/octet-stream'): FilePart => ({ field: 'file', filename, contentType, bytes });
const db = () => t.app.database.db;

describe('documents in chat (issue 13)', () => {
  it.each([
    ['quote.pdf', PDF, 'pdf', DOCUMENT_TYPES.pdf],
    ['Contract v2.docx', DOCX, 'docx', DOCUMENT_TYPES.docx],
    ['prices.xlsx', XLSX, 'xlsx', DOCUMENT_TYPES.xlsx],
    ['orders.csv', CSV, 'csv', DOCUMENT_TYPES.csv],
    ['notes.txt', TEXT, 'txt', DOCUMENT_TYPES.txt],
  ])('a visitor sends %s: stored with its name, sniffed type and size', async (name, bytes, ext, mime) => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    // The declared type is ignored: the bytes decide.
    const res = await postForm(t.app, '/api/widget/messages', v.token, { client_id: `doc-${ext}` }, filePart(bytes, name, 'image/png'));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ file_name: name, file_type: mime, file_size: bytes.length, message: '', sender_type: 'visitor' });
    expect(res.body.data.file_path).toMatch(new RegExp(`^${owner.user.account_id}/[\\w-]+\\.${ext}$`));
    // The conversation list says what came.
    const [conv] = await db().select().from(conversations).where(eq(conversations.visitorId, v.id));
    expect(conv!.lastMessage).toBe(`[file] ${name}`);
    // Counted against the account's storage like images; no thumbnail for a document.
    const [stored] = await db().select().from(storedFiles).where(eq(storedFiles.path, res.body.data.file_path));
    expect(Number(stored!.bytes)).toBe(bytes.length);
    // The same client_id again: the same message, no second file.
    const again = await postForm(t.app, '/api/widget/messages', v.token, { client_id: `doc-${ext}` }, filePart(bytes, name));
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(res.body.data.id);
    // The history carries the file's fields.
    const history = await call(t.app, 'GET', '/api/widget/messages', { token: v.token });
    expect(history.body.data.at(-1)).toMatchObject({ file_name: name, file_type: mime, file_size: bytes.length });
  });

  it.each([
    ['setup.exe renamed invoice.pdf', EXE, 'invoice.pdf'],
    ['an ELF binary named data.csv', ELF, 'data.csv'],
    ['an HTML page named notes.txt', HTML_PAGE, 'notes.txt'],
    ['an SVG named drawing.txt', SVG, 'drawing.txt'],
    ['a plain zip named report.docx', PLAIN_ZIP, 'report.docx'],
  ])('refuses %s (415), storing nothing', async (_what, bytes, name) => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const before = (await db().select().from(storedFiles)).length;
    const res = await postForm(t.app, '/api/widget/messages', v.token, { message: 'see attached' }, filePart(bytes, name, 'application/pdf'));
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ message: NOT_AN_ALLOWED_FILE, error: NOT_AN_ALLOWED_FILE, errors: { file: [NOT_AN_ALLOWED_FILE] } });
    expect((await db().select().from(storedFiles)).length).toBe(before);
    expect((await call(t.app, 'GET', '/api/widget/messages', { token: v.token })).body.data).toEqual([]);
  });

  it('refuses a document over 5 MB with the images\' message style (413)', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const big = Buffer.concat([PDF, Buffer.alloc(CHAT_IMAGE_MAX_BYTES + 1 - PDF.length, 0x20)]);
    const res = await postForm(t.app, '/api/widget/messages', v.token, {}, filePart(big, 'big.pdf'));
    expect(res.status).toBe(413);
    expect(res.body.message).toBe('File size should be less than 5MB');
  });

  it('an image through the file field stays an image (preview, thumbnail); SPEC\'s image field still refuses a PDF', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const res = await postForm(t.app, '/api/widget/messages', v.token, {}, filePart(TINY_PNG, 'screenshot.png'));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ file_name: 'screenshot.png', file_type: 'image/png', file_size: TINY_PNG.length });
    const [conv] = await db().select().from(conversations).where(eq(conversations.visitorId, v.id));
    expect(conv!.lastMessage).toBe('[image]');
    const spec = await postForm(t.app, '/api/widget/messages', v.token, {}, { field: 'image', filename: 'a.pdf', contentType: 'application/pdf', bytes: PDF });
    expect(spec.status).toBe(415);
    expect(spec.body.message).toBe('Only PNG, JPEG, GIF and WebP images are allowed');
  });

  it('served as an attachment with nosniff, named by ?name= but always with the stored extension; images stay inline', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    const sent = await postForm(t.app, '/api/widget/messages', v.token, {}, filePart(PDF, 'Quote 7.pdf'));
    const url = `/storage/${sent.body.data.file_path}`;
    const res = await t.app.inject({ method: 'GET', url: `${url}?name=${encodeURIComponent('Quote 7.pdf')}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-disposition']).toBe('attachment; filename="Quote 7.pdf"');
    expect(res.rawPayload.equals(PDF)).toBe(true);
    // A crafted link cannot make it download as something runnable.
    const evil = await t.app.inject({ method: 'GET', url: `${url}?name=${encodeURIComponent('../setup.exe')}` });
    expect(evil.headers['content-disposition']).toBe('attachment; filename="setup.exe.pdf"');
    const plain = await t.app.inject({ method: 'GET', url });
    expect(plain.headers['content-disposition']).toBe('attachment; filename="file.pdf"');
    const img = await postForm(t.app, '/api/widget/messages', v.token, {}, filePart(TINY_PNG, 'p.png'));
    const shown = await t.app.inject({ method: 'GET', url: `/storage/${img.body.data.file_path}` });
    expect(shown.headers['content-disposition']).toBe('inline');
  });

  it('an agent sends a document from the console; another account cannot reach the conversation', async () => {
    const v = await buildVisitor(t.app, owner.widgetKey);
    await call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message: 'Can you send the price list?' } });
    const res = await postForm(t.app, '/api/vms/messages', owner.token, { visitor_id: v.id }, filePart(XLSX, 'Price list.xlsx'));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ sender_type: 'user', file_name: 'Price list.xlsx', file_type: DOCUMENT_TYPES.xlsx, file_size: XLSX.length });
    // The visitor gets it in their history.
    const history = await call(t.app, 'GET', '/api/widget/messages', { token: v.token });
    expect(history.body.data.at(-1)).toMatchObject({ file_name: 'Price list.xlsx', sender_type: 'user' });
    // Another account's owner: 404, nothing stored, as for a visitor that does not exist.
    const other = await buildAccount(t.app);
    const before = (await db().select().from(storedFiles)).length;
    const foreign = await postForm(t.app, '/api/vms/messages', other.token, { visitor_id: v.id }, filePart(PDF, 'x.pdf'));
    expect(foreign.status).toBe(404);
    expect((await db().select().from(storedFiles)).length).toBe(before);
    const peek = await call(t.app, 'GET', `/api/vms/messages/${v.id}`, { token: other.token });
    expect(peek.status).toBe(404);
  });
});
