import type { ConversationDto } from '@parley/shared';
import { describe, expect, it } from 'vitest';
import {
  type AssigneeFilter,
  type ChatMessage,
  type InboxConversation,
  type InboxFilter,
  applyChanges,
  compareFor,
  countConversations,
  emptyCounts,
  filterConversations,
  lastConfirmedId,
  matchesFilter,
  mergeConversations,
  mergeMessages,
  mergePage,
  oldestConfirmedId,
  readCounts,
  statusOf,
  upsertConversation,
} from './conversationLogic';

const conv = (id: number, visitor_id: string, at: string | null, extra: Partial<ConversationDto> = {}): ConversationDto => ({
  id,
  visitor_id,
  visitor_name: `V${id}`,
  visitor_email: '',
  last_message: '',
  last_message_at: at,
  status: 'open',
  snoozed_until: null,
  opened_at: '2024-01-01T00:00:00Z',
  resolved_at: null,
  assignee_id: null,
  unread_count: 0,
  created_at: '2024-01-01T00:00:00Z',
  ...extra,
});

const msg = (id: number, at: string, extra: Partial<ChatMessage> = {}): ChatMessage => ({
  id,
  visitor_id: 'v1',
  message: `m${id}`,
  file_path: '',
  sender_type: 'visitor',
  author_id: null,
  author_name: null,
  client_id: null,
  created_at: at,
  ...extra,
});

describe('mergeConversations', () => {
  it('sorts newest last_message_at first, no date last', () => {
    const out = mergeConversations([conv(1, 'a', '2024-01-01T10:00:00Z'), conv(2, 'b', null), conv(3, 'c', '2024-01-02T10:00:00Z')]);
    expect(out.map((c) => c.visitor_id)).toEqual(['c', 'a', 'b']);
  });
  it('merges entries of one visitor, keeping the latest', () => {
    const out = mergeConversations([conv(1, 'a', '2024-01-01T10:00:00Z', { last_message: 'old' })], [conv(1, 'a', '2024-01-03T10:00:00Z', { last_message: 'new' })]);
    expect(out).toHaveLength(1);
    expect(out[0]!.last_message).toBe('new');
  });
  it('does not let an older entry replace a newer one', () => {
    const out = mergeConversations([conv(1, 'a', '2024-01-03T10:00:00Z', { last_message: 'new' }), conv(1, 'a', '2024-01-01T10:00:00Z', { last_message: 'old' })]);
    expect(out[0]!.last_message).toBe('new');
  });
  it('upsert moves an updated conversation to the top', () => {
    const list = mergeConversations([conv(1, 'a', '2024-01-02T00:00:00Z'), conv(2, 'b', '2024-01-01T00:00:00Z')]);
    const out = upsertConversation(list, conv(2, 'b', '2024-01-05T00:00:00Z'));
    expect(out.map((c) => c.visitor_id)).toEqual(['b', 'a']);
    expect(out).toHaveLength(2);
  });
});

describe('mergeMessages', () => {
  it('merges by id without duplicates, ascending by created_at', () => {
    const held = [msg(1, '2024-01-01T10:00:00Z'), msg(2, '2024-01-01T10:01:00Z')];
    const out = mergeMessages(held, [msg(2, '2024-01-01T10:01:00Z', { message: 'edited' }), msg(3, '2024-01-01T10:02:00Z')]);
    expect(out.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(out[1]!.message).toBe('edited');
  });
  it('orders by time even when ids arrive out of order', () => {
    const out = mergeMessages([msg(5, '2024-01-01T10:05:00Z')], [msg(4, '2024-01-01T10:04:00Z')]);
    expect(out.map((m) => m.id)).toEqual([4, 5]);
  });
  it('the same message from socket and poll appears once', () => {
    const once = mergeMessages([], [msg(7, '2024-01-01T10:00:00Z')]);
    const twice = mergeMessages(once, [msg(7, '2024-01-01T10:00:00Z')]);
    expect(twice).toHaveLength(1);
  });
  it('a stored message replaces the temporary item with its client_id', () => {
    const temp = msg(-1, '2024-01-01T10:00:00Z', { pending: true, client_id: 'c1', sender_type: 'user' });
    const out = mergeMessages([msg(1, '2024-01-01T09:00:00Z'), temp], [msg(9, '2024-01-01T10:00:01Z', { client_id: 'c1', sender_type: 'user' })]);
    expect(out.map((m) => m.id)).toEqual([1, 9]);
  });
  it('lastConfirmedId ignores temporary items', () => {
    expect(lastConfirmedId([msg(3, 'x'), msg(-1, 'y', { pending: true }), msg(8, 'z')])).toBe(8);
    expect(lastConfirmedId([])).toBeUndefined();
  });
});

describe('filterConversations', () => {
  const list = [
    conv(1, 'a', null, { visitor_name: 'Alice Doe', visitor_email: 'alice@x.io', last_message: 'Where is my order?' }),
    conv(2, 'b', null, { visitor_name: '', visitor_email: 'bob@y.io', last_message: 'Refund please' }),
  ];
  it('returns all for a blank query', () => {
    expect(filterConversations(list, '  ')).toHaveLength(2);
  });
  it('matches name, email and message text, case-insensitively', () => {
    expect(filterConversations(list, 'alice').map((c) => c.id)).toEqual([1]);
    expect(filterConversations(list, 'BOB@Y').map((c) => c.id)).toEqual([2]);
    expect(filterConversations(list, 'refund').map((c) => c.id)).toEqual([2]);
    expect(filterConversations(list, 'anonymous').map((c) => c.id)).toEqual([2]);
    expect(filterConversations(list, 'nothing')).toHaveLength(0);
  });
  it('searches extra text such as loaded messages', () => {
    expect(filterConversations(list, 'tracking', (c) => (c.id === 1 ? 'tracking number' : '')).map((c) => c.id)).toEqual([1]);
  });
});

describe('inbox list logic', () => {
  const at = (h: number) => `2024-01-01T${String(h).padStart(2, '0')}:00:00Z`;
  const c = (id: number, h: number | null, extra: Partial<InboxConversation> = {}): InboxConversation => conv(id, `v${id}`, h === null ? null : at(h), extra);
  const open: InboxFilter = { assignee: 'all', status: 'open', sort: 'newest' };

  it('reads the old closed status as resolved', () => {
    expect(statusOf({ status: 'closed' })).toBe('resolved');
    expect(statusOf({ status: 'pending' })).toBe('pending');
    expect(statusOf({ status: 'open' })).toBe('open');
  });

  it('matches Mine / Unassigned / All with the status', () => {
    const mine = c(1, 1, { assignee_id: 7 });
    const other = c(2, 1, { assignee_id: 8 });
    const none = c(3, 1);
    const f = (assignee: AssigneeFilter) => [mine, other, none].filter((x) => matchesFilter(x, { assignee, status: 'open' }, 7)).map((x) => x.id);
    expect(f('mine')).toEqual([1]);
    expect(f('unassigned')).toEqual([3]);
    expect(f('all')).toEqual([1, 2, 3]);
    expect(matchesFilter(c(4, 1, { status: 'resolved' as never }), { assignee: 'all', status: 'open' }, 7)).toBe(false);
    // Nobody is "mine" without a signed-in user.
    expect(matchesFilter(c(5, 1, { assignee_id: null }), { assignee: 'mine', status: 'open' }, null)).toBe(false);
  });

  it('sorts like the server: newest (no message last), oldest (no message first), waiting longest (not waiting last)', () => {
    const list = [c(1, 5, { waiting_since: at(3) }), c(2, 9, { waiting_since: null }), c(3, 1, { waiting_since: at(1) }), c(4, null), c(5, 5, { waiting_since: at(3) })];
    expect([...list].sort(compareFor('newest')).map((x) => x.id)).toEqual([2, 5, 1, 3, 4]);
    expect([...list].sort(compareFor('oldest')).map((x) => x.id)).toEqual([4, 3, 1, 5, 2]);
    expect([...list].sort(compareFor('waiting')).map((x) => x.id)).toEqual([3, 1, 5, 2, 4]);
  });

  it('merges a page without repeating a visitor, the newer row winning, in order', () => {
    const held = [c(3, 9), c(2, 8)];
    const out = mergePage(held, [c(2, 8, { last_message: 'again' }), c(1, 7)], 'newest');
    expect(out.map((x) => x.id)).toEqual([3, 2, 1]);
    expect(out[1]!.last_message).toBe('again');
  });

  it('applies changes: updates, adds and drops rows by the filter', () => {
    const held = [c(3, 9), c(2, 8), c(1, 7)];
    // Conversation 2 was resolved: it leaves the Open view; 4 is new and newest: it joins at the top.
    const out = applyChanges(held, [c(2, 10, { status: 'resolved' as never }), c(4, 11)], open, 7, false);
    expect(out.map((x) => x.id)).toEqual([4, 3, 1]);
    // Unchanged input when nothing applies.
    expect(applyChanges(held, [c(9, 1, { status: 'resolved' as never })], open, 7, false)).toBe(held);
  });

  it('leaves a changed row that sorts after the last held one to its page while more pages wait', () => {
    const held = [c(3, 9), c(2, 8)];
    const old = c(1, 1);
    expect(applyChanges(held, [old], open, 7, true).map((x) => x.id)).toEqual([3, 2]);
    expect(applyChanges(held, [old], open, 7, false).map((x) => x.id)).toEqual([3, 2, 1]);
    // A held row that changes keeps its place even past the end (its page was loaded).
    expect(applyChanges(held, [c(2, 2, { last_message: 'x' })], open, 7, true).map((x) => x.last_message)).toEqual(['', 'x']);
  });

  it('counts a whole list per assignee and status', () => {
    const counts = countConversations(
      [c(1, 1, { assignee_id: 7 }), c(2, 1, { assignee_id: 8, status: 'pending' as never }), c(3, 1, { status: 'closed' as never }), c(4, 1)],
      7,
    );
    expect(counts).toEqual({
      mine: { open: 1, pending: 0, resolved: 0 },
      unassigned: { open: 1, pending: 0, resolved: 1 },
      all: { open: 2, pending: 1, resolved: 1 },
    });
  });

  it('reads the server counts, refusing a malformed object', () => {
    const good = { mine: { open: 1, pending: 2, resolved: 3 }, unassigned: { open: 4, pending: 0, resolved: 0 }, all: { open: 9, pending: 2, resolved: 5 } };
    expect(readCounts(good)).toEqual(good);
    expect(readCounts({ mine: good.mine })).toBeNull();
    expect(readCounts(null)).toBeNull();
    expect(readCounts({ ...good, all: { open: 'x' } })?.all).toEqual({ open: 0, pending: 0, resolved: 0 });
    expect(emptyCounts().all.open).toBe(0);
  });

  it('oldestConfirmedId is the next older page boundary', () => {
    expect(oldestConfirmedId([msg(9, 'a'), msg(-2, 'b', { pending: true }), msg(4, 'c')])).toBe(4);
    expect(oldestConfirmedId([])).toBeUndefined();
  });
});
