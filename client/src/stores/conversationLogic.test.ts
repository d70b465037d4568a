import type { ConversationDto } from '@parley/shared';
import { describe, expect, it } from 'vitest';
import { type ChatMessage, filterConversations, lastConfirmedId, mergeConversations, mergeMessages, upsertConversation } from './conversationLogic';

const conv = (id: number, visitor_id: string, at: string | null, extra: Partial<ConversationDto> = {}): ConversationDto => ({
  id,
  visitor_id,
  visitor_name: `V${id}`,
  visitor_email: '',
  last_message: '',
  last_message_at: at,
  status: 'open',
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
