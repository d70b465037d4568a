import type { UserDto } from '@parley/shared';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAuth } from './auth';
import type { InboxConversation } from './conversationLogic';
import { PAGE_SIZE, useConversations } from './conversations';

/**
 * The store against a fake server (fetch stubbed): which calls it makes and what it holds.
 * The real server's answers are covered by its own tests and the e2e journeys.
 */
type Handler = (url: URL) => unknown;
let calls: URL[] = [];
let handler: Handler = () => ({ message: 'success', data: [] });

beforeEach(() => {
  calls = [];
  const store = new Map<string, string>([['auth_token', 't0k']]);
  vi.stubGlobal('localStorage', { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => store.set(k, v), removeItem: (k: string) => store.delete(k) });
  vi.stubGlobal('fetch', async (input: string) => {
    const url = new URL(input, 'http://console.test');
    calls.push(url);
    return new Response(JSON.stringify(handler(url)), { status: 200, headers: { 'content-type': 'application/json' } });
  });
  useAuth.setState({ user: { id: 7, name: 'Ada', permissions: [] } as unknown as UserDto });
  useConversations.getState().reset(7);
});
afterEach(() => vi.unstubAllGlobals());

const conv = (n: number, extra: Partial<InboxConversation> = {}): InboxConversation =>
  ({
    id: n,
    visitor_id: `v${n}`,
    visitor_name: `V${n}`,
    visitor_email: '',
    last_message: `m${n}`,
    last_message_at: new Date(Date.UTC(2024, 0, 1, 0, n)).toISOString(),
    status: 'open',
    assignee_id: null,
    unread_count: 0,
    created_at: '2024-01-01T00:00:00Z',
    ...extra,
  }) as InboxConversation;
const counts = { mine: { open: 1, pending: 0, resolved: 0 }, unassigned: { open: 150, pending: 0, resolved: 0 }, all: { open: 200, pending: 3, resolved: 9 } };

describe('conversations store: paging', () => {
  it('asks for the filter one page at a time and appends the next page by cursor', async () => {
    handler = (url) => {
      const cursor = url.searchParams.get('cursor');
      const rows = cursor ? [conv(100), conv(99)] : [conv(200), conv(199)];
      return { message: 'success', data: rows, next_cursor: cursor ? null : 'c1', has_more: !cursor, total: 200, counts, changes_cursor: 'ch1' };
    };
    const s = useConversations.getState();
    await s.loadConversations('reset');
    expect(calls[0]!.pathname).toBe('/api/vms/conversations');
    expect(Object.fromEntries(calls[0]!.searchParams)).toEqual({ limit: String(PAGE_SIZE), status: 'open', assignee: 'all', sort: 'newest' });
    expect(useConversations.getState()).toMatchObject({ paged: true, hasMore: true, nextCursor: 'c1', total: 200, counts });
    await useConversations.getState().loadConversations('more');
    expect(calls[1]!.searchParams.get('cursor')).toBe('c1');
    const st = useConversations.getState();
    expect(st.conversations.map((c) => c.id)).toEqual([200, 199, 100, 99]);
    expect(st.hasMore).toBe(false);
    // Nothing more to ask for.
    await st.loadConversations('more');
    expect(calls).toHaveLength(2);
  });

  it('a filter change starts over with that filter', async () => {
    handler = () => ({ message: 'success', data: [conv(1, { assignee_id: 7 })], next_cursor: null, has_more: false, total: 1, counts });
    await useConversations.getState().loadConversations('reset');
    useConversations.getState().setFilter({ assignee: 'mine', status: 'pending', sort: 'waiting' });
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(Object.fromEntries(calls[1]!.searchParams)).toMatchObject({ assignee: 'me', status: 'pending', sort: 'waiting' });
  });
});

describe('conversations store: polling while the socket is down', () => {
  it('asks only what changed since the cursor and applies it to the view', async () => {
    handler = (url) => {
      if (url.searchParams.has('changes_since')) {
        // 2 was resolved (leaves Open), 3 is new.
        return { message: 'success', data: [conv(2, { status: 'resolved' as never }), conv(3)], changes_cursor: 'ch2' };
      }
      return { message: 'success', data: [conv(2), conv(1)], next_cursor: null, has_more: false, total: 2, counts, changes_cursor: 'ch1' };
    };
    await useConversations.getState().loadConversations('reset');
    await useConversations.getState().pollChanges();
    expect(Object.fromEntries(calls[1]!.searchParams)).toEqual({ changes_since: 'ch1' });
    expect(useConversations.getState().conversations.map((c) => c.id)).toEqual([3, 1]);
    // One reassigned away from this Agent: the server names it in removed_ids.
    handler = () => ({ message: 'success', data: [], removed_ids: [1], changes_cursor: 'ch3', counts });
    await useConversations.getState().pollChanges();
    expect(useConversations.getState().conversations.map((c) => c.id)).toEqual([3]);
    handler = () => ({ message: 'success', data: [], changes_cursor: 'ch4' });
    await useConversations.getState().pollChanges();
    expect(calls[2]!.searchParams.get('changes_since')).toBe('ch2');
    expect(calls[3]!.searchParams.get('changes_since')).toBe('ch3');
    // No call without changes_since re-reads the list (counts are refreshed with a one-row page only).
    expect(calls.filter((u) => !u.searchParams.has('changes_since') && u.searchParams.get('limit') !== '1')).toHaveLength(1);
  });

  it("keeps the open conversation unread while the tab is hidden, and reads it as seen when shown", async () => {
    let visibility: 'visible' | 'hidden' = 'visible';
    vi.stubGlobal('document', { get visibilityState() { return visibility; } });
    handler = (url) => {
      if (url.searchParams.has('changes_since')) return { message: 'success', data: [conv(2, { unread_count: 3 }), conv(1, { unread_count: 1 })], changes_cursor: 'ch2' };
      if (url.pathname.startsWith('/api/vms/messages/')) return { message: 'success', data: [], next_cursor: 'm1', has_more: false };
      return { message: 'success', data: [conv(2, { unread_count: 2 }), conv(1)], next_cursor: null, has_more: false, total: 2, counts, changes_cursor: 'ch1' };
    };
    await useConversations.getState().loadConversations('reset');
    useConversations.getState().select('v2');
    const unread = () => Object.fromEntries(useConversations.getState().conversations.map((c) => [c.visitor_id, c.unread_count]));
    expect(unread()).toEqual({ v2: 0, v1: 0 });
    expect(useConversations.getState().current?.unread_count).toBe(0);

    // The agent switches tabs; messages arrive in the open conversation: it stays unread.
    visibility = 'hidden';
    await useConversations.getState().pollChanges();
    expect(unread()).toEqual({ v2: 3, v1: 1 });
    expect(useConversations.getState().current?.unread_count).toBe(3);

    // Shown again: the same answer reads the open one as seen (the others stay unread).
    visibility = 'visible';
    await useConversations.getState().pollChanges();
    expect(unread()).toEqual({ v2: 0, v1: 1 });
  });

  it('a server without paging is read whole and filtered here, counts included', async () => {
    handler = () => ({ message: 'success', data: [conv(1), conv(2, { status: 'closed' as never }), conv(3, { assignee_id: 7 })] });
    await useConversations.getState().loadConversations('reset');
    const st = useConversations.getState();
    expect(st.paged).toBe(false);
    expect(st.conversations.map((c) => c.id)).toEqual([3, 1]);
    expect(st.counts?.all).toEqual({ open: 2, pending: 0, resolved: 1 });
    expect(st.counts?.mine.open).toBe(1);
    st.setFilter({ status: 'resolved' });
    expect(useConversations.getState().conversations.map((c) => c.id)).toEqual([2]);
    expect(calls).toHaveLength(1);
  });
});

describe('conversations store: history', () => {
  it('loads the latest page, then older pages before the oldest held id', async () => {
    const msg = (id: number) => ({ id, visitor_id: 'v1', message: `t${id}`, file_path: '', sender_type: 'visitor', author_id: null, author_name: null, client_id: null, created_at: new Date(Date.UTC(2024, 0, 1, 0, 0, id)).toISOString() });
    handler = (url) => {
      if (url.pathname.startsWith('/api/vms/messages/')) {
        const before = url.searchParams.get('before');
        if (!before) return { message: 'success', data: [msg(51), msg(52)], next_cursor: 'p1', has_more: true };
        return { message: 'success', data: [msg(49), msg(50)], has_more: false };
      }
      return { message: 'success', data: [conv(1)], next_cursor: null, has_more: false, counts };
    };
    useConversations.getState().select('v1');
    await vi.waitFor(() => expect(useConversations.getState().older.v1?.hasMore).toBe(true));
    expect(calls.at(-1)!.searchParams.get('limit')).toBe(String(PAGE_SIZE));
    expect(await useConversations.getState().loadOlder('v1')).toBe(true);
    expect(calls.at(-1)!.searchParams.get('before')).toBe('51');
    const st = useConversations.getState();
    expect(st.messagesByVisitor.v1!.map((m) => m.id)).toEqual([49, 50, 51, 52]);
    expect(st.older.v1).toEqual({ hasMore: false, loading: false });
    // A poll keeps using the commit-safe cursor of the latest page.
    await st.loadMessages('v1', 'poll');
    expect(calls.at(-1)!.searchParams.get('cursor')).toBe('p1');
  });
});
