// @vitest-environment happy-dom
import type { AiSourceDto } from '@parley/shared';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAiSources } from '../../stores/aiSources';
import { SourcesPanel } from './SourcesPanel';

/** The "Knowledge sources" card rendered against a fake server: its states, validation and confirmation. */
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const src = (over: Partial<AiSourceDto>): AiSourceDto => ({
  id: '00000000-0000-4000-8000-000000000001',
  kind: 'website',
  name: 'shop.example.com',
  url: 'https://shop.example.com/',
  status: 'ready',
  page_count: 6,
  passage_count: 40,
  last_refreshed_at: '2026-11-24T05:00:00.000Z',
  next_refresh_at: null,
  error: null,
  created_at: '2026-11-24T04:00:00.000Z',
  ...over,
});
let list: AiSourceDto[] = [];
let calls: string[] = [];
let root: Root;
let host: HTMLDivElement;

beforeEach(() => {
  calls = [];
  vi.stubGlobal('localStorage', { getItem: () => 'tok', setItem: () => {}, removeItem: () => {} });
  vi.stubGlobal('fetch', async (input: string, init: RequestInit = {}) => {
    const url = new URL(input, 'http://console.test');
    calls.push(`${init.method ?? 'GET'} ${url.pathname}`);
    const body =
      url.pathname === '/api/chatbot/source-usage'
        ? { message: 'success', data: { [list[0]?.id ?? 'x']: { uses: 7, helpful: 3, not_helpful: 1, visitor_helpful: 2, visitor_not_helpful: 0 } } }
        : { message: 'success', data: list, next_cursor: null, total: list.length };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  });
  useAiSources.setState({ status: 'idle', error: '', sources: [], next: null, total: 0, usage: {} });
  host = document.createElement('div');
  document.body.append(host);
  root = createRoot(host);
});
afterEach(() => {
  act(() => root.unmount());
  host.remove();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const render = async () => {
  await act(async () => root.render(<SourcesPanel />));
  await act(async () => {}); // the list and its usage arrive
};
const button = (name: string) => [...document.querySelectorAll('button')].find((b) => b.textContent?.trim() === name)!;

describe('Knowledge sources card', () => {
  it('says so when there is no source yet', async () => {
    list = [];
    await render();
    expect(host.textContent).toContain('No sources yet.');
  });

  it('lists each source with its status, counts, last refresh, error and what it answered', async () => {
    list = [src({}), src({ id: '00000000-0000-4000-8000-000000000002', kind: 'document', name: 'Care guide.pdf', url: null, status: 'failed', error: 'The PDF has no text', page_count: 0, passage_count: 0 })];
    await render();
    const items = [...host.querySelectorAll('.cb-source')];
    expect(items).toHaveLength(2);
    expect(items[0]!.textContent).toContain('Ready');
    expect(items[0]!.textContent).toContain('6 pages · 40 passages · Last refreshed:');
    expect(items[0]!.textContent).toContain('Answers given: 7 · Team feedback: 3 helpful, 1 not helpful · Visitors: 2 helpful, 0 not helpful');
    expect(items[1]!.textContent).toContain('Failed');
    expect(items[1]!.textContent).toContain('The PDF has no text');
    expect(items[1]!.textContent).not.toContain('pages');
  });

  it('refuses an invalid website address without calling the server', async () => {
    list = [];
    await render();
    const input = host.querySelector('input[inputmode=url]') as HTMLInputElement;
    await act(async () => {
      const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
      setter.call(input, 'ftp://example.com');
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const before = calls.length;
    await act(async () => button('Add website').click());
    expect(host.textContent).toContain('Enter a website address starting with http:// or https://');
    expect(calls.length).toBe(before);
  });

  it('asks before removing a source', async () => {
    list = [src({})];
    await render();
    await act(async () => button('Remove').click());
    expect(document.body.textContent).toContain('Remove this source?');
    expect(calls.some((c) => c.startsWith('DELETE'))).toBe(false);
    await act(async () => button('Remove source').click());
    expect(calls).toContain(`DELETE /api/chatbot/sources/${list[0]!.id}`);
  });

  it('reads the list again while a source is queued, and stops once it is ready', async () => {
    vi.useFakeTimers();
    list = [src({ status: 'queued', passage_count: 0 })];
    await render();
    const reads = () => calls.filter((c) => c === 'GET /api/chatbot/sources').length;
    expect(reads()).toBe(1);
    list = [src({ status: 'ready' })];
    await act(async () => vi.advanceTimersByTime(3000));
    await act(async () => {});
    expect(reads()).toBe(2);
    expect(host.textContent).toContain('Ready');
    await act(async () => vi.advanceTimersByTime(9000));
    expect(reads()).toBe(2);
  });
});
