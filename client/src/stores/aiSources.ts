import {
  type AiPassageDto,
  type AiSourceDto,
  type AiSourceUsageDto,
  aiSourceUrlSchema,
  SOURCE_FILE_MAX_BYTES,
  SOURCE_FILE_REQUIRED,
  SOURCE_FILE_TOO_LARGE,
  SOURCE_FILE_TYPES,
} from '@parley/shared';
import { create } from 'zustand';
import { api, errorText, formData, request } from '../lib/api';

/**
 * The assistant's knowledge sources (issue 17), Owner/Admin only: the business's website,
 * documents and FAQ files, paged, with what each answered. The server validates everything again.
 */
export const SOURCES_PAGE = 10;
export const PASSAGES_PAGE = 20;
/** While a source is queued or refreshing, the list is read again this often. */
export const POLL_MS = 3000;
export const SOURCE_FILE_EXTENSIONS = ['.pdf', '.docx', '.md', '.txt', '.csv'] as const;

/** The website field's error, or null (the same rules as the server: http(s) or a bare host). */
export function validateSourceUrl(text: string): string | null {
  const r = aiSourceUrlSchema.safeParse({ url: text });
  return r.success ? null : (r.error.issues[0]?.message ?? 'Enter a website address');
}

/** The chosen file's error, or null: a PDF, DOCX, Markdown, text or CSV file of at most 10 MB. */
export function validateSourceFile(file: { name: string; size: number } | null): string | null {
  if (!file) return SOURCE_FILE_REQUIRED;
  const name = file.name.toLowerCase();
  if (!SOURCE_FILE_EXTENSIONS.some((ext) => name.endsWith(ext))) return SOURCE_FILE_TYPES;
  if (file.size > SOURCE_FILE_MAX_BYTES) return SOURCE_FILE_TOO_LARGE;
  return null;
}

/** A source being read: the list polls until none is. */
export const isBusy = (s: Pick<AiSourceDto, 'status'>) => s.status === 'queued' || s.status === 'refreshing';

interface SourcesPage {
  data?: AiSourceDto[];
  next_cursor?: string | null;
  total?: number;
}

interface State {
  status: 'idle' | 'loading' | 'error' | 'ready';
  error: string;
  sources: AiSourceDto[];
  next: string | null;
  total: number;
  usage: Record<string, AiSourceUsageDto>;
  load(): Promise<void>;
  loadMore(): Promise<void>;
  /** Reads the pages shown again (polling), without a loading state. */
  refreshList(): Promise<void>;
  /** Each resolves to an error text, or null when done. */
  addUrl(url: string): Promise<string | null>;
  upload(file: File): Promise<string | null>;
  refresh(id: string): Promise<string | null>;
  remove(id: string): Promise<string | null>;
}

async function fetchPage(cursor: string | null, limit: number): Promise<SourcesPage> {
  return request<SourcesPage>('GET', '/api/chatbot/sources', undefined, { query: { limit, cursor } });
}

async function fetchUsage(ids: string[]): Promise<Record<string, AiSourceUsageDto>> {
  if (ids.length === 0) return {};
  const body = await api.get<{ data?: Record<string, AiSourceUsageDto> }>('/api/chatbot/source-usage', { query: { ids: ids.join(',') } });
  return body.data ?? {};
}

export const useAiSources = create<State>((set, get) => {
  const withUsage = async (sources: AiSourceDto[]) => {
    try {
      set({ usage: { ...get().usage, ...(await fetchUsage(sources.map((s) => s.id))) } });
    } catch {
      // The figures are extra: the list stands without them.
    }
  };
  const replace = (source: AiSourceDto) => set({ sources: get().sources.map((s) => (s.id === source.id ? source : s)) });
  return {
    status: 'idle',
    error: '',
    sources: [],
    next: null,
    total: 0,
    usage: {},

    async load() {
      set({ status: 'loading', error: '' });
      try {
        const page = await fetchPage(null, SOURCES_PAGE);
        set({ status: 'ready', sources: page.data ?? [], next: page.next_cursor ?? null, total: page.total ?? 0 });
        await withUsage(page.data ?? []);
      } catch (e) {
        set({ status: 'error', error: errorText(e, 'Could not load the knowledge sources.') });
      }
    },

    async loadMore() {
      const { next, sources } = get();
      if (!next) return;
      try {
        const page = await fetchPage(next, SOURCES_PAGE);
        const seen = new Set(sources.map((s) => s.id));
        const more = (page.data ?? []).filter((s) => !seen.has(s.id));
        set({ sources: [...sources, ...more], next: page.next_cursor ?? null, total: page.total ?? get().total });
        await withUsage(more);
      } catch (e) {
        set({ error: errorText(e, 'Could not load more sources.') });
      }
    },

    async refreshList() {
      const shown = Math.max(SOURCES_PAGE, get().sources.length);
      try {
        const page = await fetchPage(null, Math.min(shown, 100));
        set({ sources: page.data ?? [], next: page.next_cursor ?? null, total: page.total ?? 0 });
        await withUsage(page.data ?? []);
      } catch {
        // The next poll tries again.
      }
    },

    async addUrl(url) {
      const invalid = validateSourceUrl(url);
      if (invalid) return invalid;
      try {
        const body = await api.post<{ data: AiSourceDto }>('/api/chatbot/sources', { url: url.trim() });
        set({ sources: [body.data, ...get().sources.filter((s) => s.id !== body.data.id)], total: get().total + 1 });
        return null;
      } catch (e) {
        return errorText(e, 'Could not add the website.');
      }
    },

    async upload(file) {
      const invalid = validateSourceFile(file);
      if (invalid) return invalid;
      try {
        const body = await api.post<{ data: AiSourceDto }>('/api/chatbot/sources/upload', formData({ file }));
        set({ sources: [body.data, ...get().sources.filter((s) => s.id !== body.data.id)], total: get().total + 1 });
        return null;
      } catch (e) {
        return errorText(e, 'Could not upload the file.');
      }
    },

    async refresh(id) {
      try {
        const body = await api.post<{ data: AiSourceDto }>(`/api/chatbot/sources/${id}/refresh`);
        if (body?.data) replace(body.data);
        return null;
      } catch (e) {
        return errorText(e, 'Could not refresh the source.');
      }
    },

    async remove(id) {
      try {
        await api.delete(`/api/chatbot/sources/${id}`);
        set({ sources: get().sources.filter((s) => s.id !== id), total: Math.max(0, get().total - 1) });
        return null;
      } catch (e) {
        return errorText(e, 'Could not remove the source.');
      }
    },
  };
});

/** One page of a source's passages (GET .../passages). */
export async function fetchPassages(id: string, cursor: string | null): Promise<{ data: AiPassageDto[]; next: string | null }> {
  const body = await request<{ data?: AiPassageDto[]; next_cursor?: string | null }>('GET', `/api/chatbot/sources/${id}/passages`, undefined, {
    query: { limit: PASSAGES_PAGE, cursor },
  });
  return { data: body.data ?? [], next: body.next_cursor ?? null };
}
