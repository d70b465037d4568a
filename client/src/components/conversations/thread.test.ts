import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../stores/conversationLogic';
import { buildThread, dayLabel, highlightParts } from './thread';

const m = (id: number, at: string, extra: Partial<ChatMessage> = {}): ChatMessage =>
  ({ id, visitor_id: 'v', message: `m${id}`, file_path: '', sender_type: 'visitor', author_id: null, author_name: null, client_id: null, created_at: at, ...extra }) as ChatMessage;

// Local times (no Z): day boundaries are the viewer's.
const now = new Date('2024-03-06T12:00:00');

describe('buildThread', () => {
  it('puts a day separator before each local day, labelled Today / Yesterday / the date', () => {
    const items = buildThread([m(1, '2024-03-01T10:00:00'), m(2, '2024-03-05T10:00:00'), m(3, '2024-03-06T09:00:00'), m(4, '2024-03-06T09:01:00')], now);
    expect(items.filter((i) => i.kind === 'day').map((i) => (i as { label: string }).label)).toEqual(['Friday, March 1', 'Yesterday', 'Today']);
    expect(items.map((i) => i.kind)).toEqual(['day', 'message', 'day', 'message', 'day', 'message', 'message']);
  });

  it('groups a run of one sender; another sender, a long gap or a new day starts a group', () => {
    const agentA = { sender_type: 'user' as const, author_id: 1, author_name: 'Ada' };
    const agentB = { sender_type: 'user' as const, author_id: 2, author_name: 'Bob' };
    const items = buildThread(
      [
        m(1, '2024-03-06T09:00:00'),
        m(2, '2024-03-06T09:01:00'),
        m(3, '2024-03-06T09:02:00', agentA),
        m(4, '2024-03-06T09:02:30', agentA),
        m(5, '2024-03-06T09:03:00', agentB),
        m(6, '2024-03-06T09:30:00', agentB),
      ],
      now,
    ).filter((i) => i.kind === 'message');
    expect(items.map((i) => (i as { firstOfGroup: boolean }).firstOfGroup)).toEqual([true, false, true, false, true, true]);
    expect(items.map((i) => (i as { lastOfGroup: boolean }).lastOfGroup)).toEqual([false, true, false, true, true, true]);
  });

  it('draws system lines on their own and breaks the group around them', () => {
    const items = buildThread([m(1, '2024-03-06T09:00:00'), m(2, '2024-03-06T09:00:10', { sender_type: 'system' as never, message: 'Ada resolved the conversation' }), m(3, '2024-03-06T09:00:20')], now);
    expect(items.map((i) => i.kind)).toEqual(['day', 'message', 'system', 'message']);
    expect((items[3] as { firstOfGroup: boolean }).firstOfGroup).toBe(true);
  });

  it('keys a pending message by its client id', () => {
    const items = buildThread([m(-1, '2024-03-06T09:00:00', { pending: true, client_id: 'c_1' })], now);
    expect(items[1]!.key).toBe('c_1');
  });

  it('names a day of another year with the year', () => {
    expect(dayLabel(new Date('2023-12-31T10:00:00'), now)).toBe('Sunday, December 31, 2023');
  });
});

describe('highlightParts', () => {
  it('marks the ranges and keeps the rest plain', () => {
    expect(highlightParts('Where is my order', [[9, 11]])).toEqual([
      { text: 'Where is ', hit: false },
      { text: 'my', hit: true },
      { text: ' order', hit: false },
    ]);
  });
  it('sorts, clips and merges overlapping ranges; ignores bad ones', () => {
    expect(highlightParts('abcdef', [[4, 99], [0, 2], [1, 3], [5, 2] as never])).toEqual([
      { text: 'abc', hit: true },
      { text: 'd', hit: false },
      { text: 'ef', hit: true },
    ]);
    expect(highlightParts('abc', undefined)).toEqual([{ text: 'abc', hit: false }]);
  });
});
