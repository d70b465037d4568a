import type { AiSourceDto } from '@parley/shared';
import { SOURCE_FILE_REQUIRED, SOURCE_FILE_TOO_LARGE, SOURCE_FILE_TYPES, SOURCE_URL_INVALID } from '@parley/shared';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SOURCES_PAGE, isBusy, useAiSources, validateSourceFile, validateSourceUrl } from './aiSources';

/** The knowledge sources card's data against a fake server (fetch stubbed). */
const source = (i: number, status: AiSourceDto['status'] = 'ready'): AiSourceDto => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  kind: i % 2 ? 'website' : 'faq',
  name: `source ${i}`,
  url: i % 2 ? `https://s${i}.example.com/` : null,
  status,
  page_count: 3,
  passage_count: 12,
  last_refreshed_at: null,
  next_refresh_at: null,
  error: null,
  created_at: '2026-11-24T06:00:00.000Z',
});
let all: AiSourceDto[] = [];
let calls: { method: string; url: URL; body: unknown }[] = [];
let answer: (method: string, url: URL) => { status: number; body: unknown } | undefined;

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

beforeEach(() => {
  calls = [];
  all = Array.from({ length: 14 }, (_, i) => source(i + 1));
  answer = () => undefined;
  vi.stubGlobal('localStorage', { getItem: () => 'tok', setItem: () => {}, removeItem: () => {} });
  vi.stubGlobal('fetch', async (input: string, init: RequestInit = {}) => {
    const url = new URL(input, 'http://console.test');
    const method = init.method ?? 'GET';
    calls.push({ method, url, body: init.body });
    const special = answer(method, url);
    if (special) return json(special.status, special.body);
    if (url.pathname === '/api/chatbot/sources' && method === 'GET') {
      const limit = Number(url.searchParams.get('limit'));
      const from = Number(url.searchParams.get('cursor') ?? 0);
      const more = from + limit < all.length;
      return json(200, { message: 'success', data: all.slice(from, from + limit), next_cursor: more ? String(from + limit) : null, total: all.length });
    }
    if (url.pathname === '/api/chatbot/source-usage') {
      const ids = url.searchParams.get('ids')!.split(',');
      return json(200, { message: 'success', data: Object.fromEntries(ids.map((id) => [id, { uses: 2, helpful: 1, not_helpful: 0, visitor_helpful: 0, visitor_not_helpful: 1 }])) });
    }
    return json(404, { message: 'Not found' });
  });
  useAiSources.setState({ status: 'idle', error: '', sources: [], next: null, total: 0, usage: {} });
});
afterEach(() => vi.unstubAllGlobals());

const s = () => useAiSources.getState();

describe('validation before anything is sent', () => {
  it('takes an http(s) address or a bare host, refuses anything else', () => {
    expect(validateSourceUrl('https://www.example.com')).toBeNull();
    expect(validateSourceUrl('example.com')).toBeNull();
    expect(validateSourceUrl('')).toMatch(/./);
    expect(validateSourceUrl('ftp://example.com')).toBe(SOURCE_URL_INVALID);
  });

  it('takes PDF, DOCX, Markdown, text and CSV files up to 10 MB', () => {
    expect(validateSourceFile({ name: 'Guide.PDF', size: 1000 })).toBeNull();
    expect(validateSourceFile({ name: 'faq.csv', size: 10 })).toBeNull();
    expect(validateSourceFile(null)).toBe(SOURCE_FILE_REQUIRED);
    expect(validateSourceFile({ name: 'photo.png', size: 10 })).toBe(SOURCE_FILE_TYPES);
    expect(validateSourceFile({ name: 'big.pdf', size: 11 * 1024 * 1024 })).toBe(SOURCE_FILE_TOO_LARGE);
  });

  it('an invalid address or file never reaches the server', async () => {
    expect(await s().addUrl('ftp://nope')).toBe(SOURCE_URL_INVALID);
    expect(await s().upload(new File(['x'], 'photo.png'))).toBe(SOURCE_FILE_TYPES);
    expect(calls).toEqual([]);
  });
});

describe('the list', () => {
  it('loads a page with each source’s usage, then "Load more" appends the next page', async () => {
    await s().load();
    expect(s().status).toBe('ready');
    expect(s().sources).toHaveLength(SOURCES_PAGE);
    expect(s().total).toBe(14);
    expect(s().usage[all[0]!.id]).toEqual({ uses: 2, helpful: 1, not_helpful: 0, visitor_helpful: 0, visitor_not_helpful: 1 });
    await s().loadMore();
    expect(s().sources).toHaveLength(14);
    expect(s().next).toBeNull();
    expect(calls.filter((c) => c.url.pathname === '/api/chatbot/sources').map((c) => c.url.searchParams.get('cursor'))).toEqual([null, String(SOURCES_PAGE)]);
  });

  it('shows the error state when the list cannot load (an Agent is refused by the server)', async () => {
    answer = (_m, u) => (u.pathname === '/api/chatbot/sources' ? { status: 403, body: { message: 'This action is unauthorized.' } } : undefined);
    await s().load();
    expect(s().status).toBe('error');
    expect(s().error).toBe('This action is unauthorized.');
  });

  it('polls only while a source is queued or refreshing', () => {
    expect(isBusy(source(1, 'queued'))).toBe(true);
    expect(isBusy(source(1, 'refreshing'))).toBe(true);
    expect(isBusy(source(1, 'ready'))).toBe(false);
    expect(isBusy(source(1, 'failed'))).toBe(false);
  });

  it('adds a website on top, shows the server’s field error, and removes a source', async () => {
    await s().load();
    const added = source(99, 'queued');
    answer = (m, u) => (m === 'POST' && u.pathname === '/api/chatbot/sources' ? { status: 201, body: { message: 'success', data: added } } : undefined);
    expect(await s().addUrl('example.org')).toBeNull();
    expect(JSON.parse(String(calls.at(-1)!.body))).toEqual({ url: 'example.org' });
    expect(s().sources[0]!.id).toBe(added.id);
    expect(s().total).toBe(15);

    answer = (m, u) =>
      m === 'POST' && u.pathname === '/api/chatbot/sources' ? { status: 422, body: { message: 'This website is already a source', errors: { url: ['This website is already a source'] } } } : undefined;
    expect(await s().addUrl('example.org')).toBe('This website is already a source');

    answer = (m, u) => (m === 'DELETE' && u.pathname === `/api/chatbot/sources/${added.id}` ? { status: 200, body: { success: true } } : undefined);
    expect(await s().remove(added.id)).toBeNull();
    expect(s().sources.some((x) => x.id === added.id)).toBe(false);
    expect(s().total).toBe(14);
  });
});
