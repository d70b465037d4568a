import { describe, expect, it } from 'vitest';
import type { MessageDto } from '@parley/shared';
import { type ChatMessage, lastStoredId, mergeMessages } from './merge.js';

const msg = (id: number, extra: Partial<MessageDto> = {}): MessageDto => ({
  id,
  visitor_id: 'v1',
  message: `m${id}`,
  file_path: '',
  sender_type: 'user',
  author_id: 1,
  author_name: 'Ann',
  client_id: null,
  created_at: '2025-01-01T00:00:00.000Z',
  ...extra,
});
const pending = (clientId: string): ChatMessage => ({ ...msg(0, { sender_type: 'visitor', client_id: clientId }), id: undefined, state: 'pending' });

describe('mergeMessages', () => {
  it('keeps database order and never shows an id twice', () => {
    const first = mergeMessages([], [msg(3), msg(1)]);
    expect(first.list.map((m) => m.id)).toEqual([1, 3]);
    // The same message from the push, the ack and the catch-up.
    const again = mergeMessages(first.list, [msg(3), msg(2), msg(3)]);
    expect(again.list.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(again.added.map((m) => m.id)).toEqual([2]);
  });

  it('replaces a pending message by its stored copy (same client_id), pending ones last', () => {
    const start = mergeMessages([], [msg(1)]).list;
    const withPending = [...start, pending('a'), pending('b')];
    const { list, added } = mergeMessages(withPending, [msg(5, { sender_type: 'visitor', client_id: 'a' })]);
    expect(list.map((m) => [m.id, m.client_id, m.state])).toEqual([
      [1, null, undefined],
      [5, 'a', undefined],
      [undefined, 'b', 'pending'],
    ]);
    expect(added.map((m) => m.id)).toEqual([5]);
    // The broadcast of the same stored message after its ack changes nothing.
    const after = mergeMessages(list, [msg(5, { sender_type: 'visitor', client_id: 'a' })]);
    expect(after.list).toHaveLength(3);
    expect(after.added).toEqual([]);
  });

  it('gives the last stored id for since_id, ignoring pending messages', () => {
    expect(lastStoredId([])).toBe(0);
    expect(lastStoredId([...mergeMessages([], [msg(7), msg(4)]).list, pending('x')])).toBe(7);
  });
});
