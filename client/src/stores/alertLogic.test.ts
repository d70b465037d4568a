import type { ConversationDto, MessageDto } from '@parley/shared';
import { describe, expect, it } from 'vitest';
import { SeenKeys, TAB_STALE_MS, alertFromAssignment, alertFromMessage, shouldAlert, titleWithUnread, totalUnread } from './alertLogic';

const conv = (extra: Partial<ConversationDto> = {}): ConversationDto => ({
  id: 1,
  visitor_id: 'v1',
  visitor_name: 'Ada',
  visitor_email: '',
  last_message: 'Hello',
  last_message_at: '2026-01-01T10:05:00.000Z',
  status: 'open',
  snoozed_until: null,
  opened_at: '2026-01-01T10:00:00.000Z',
  resolved_at: null,
  assignee_id: null,
  unread_count: 1,
  created_at: '2026-01-01T10:00:00.000Z',
  ...extra,
});
const msg = (extra: Partial<MessageDto> = {}): MessageDto => ({
  id: 42,
  visitor_id: 'v1',
  message: 'Where is my order?',
  file_path: '',
  sender_type: 'visitor',
  author_id: null,
  author_name: null,
  client_id: null,
  created_at: '2026-01-01T10:05:00.000Z',
  ...extra,
});

describe('alertFromMessage', () => {
  it('turns a visitor message into a "New message" keyed by the message id', () => {
    expect(alertFromMessage({ message: msg(), conversation: conv() })).toEqual({
      key: 'message:42',
      kind: 'message',
      visitor_id: 'v1',
      title: 'New message from Ada',
      body: 'Where is my order?',
      at: '2026-01-01T10:05:00.000Z',
    });
  });

  it('calls the message that opened the conversation a new chat', () => {
    const ev = alertFromMessage({ message: msg({ created_at: '2026-01-01T10:00:00.000Z' }), conversation: conv() });
    expect(ev?.kind).toBe('chat');
    expect(ev?.title).toBe('New chat from Ada');
    // The next message, even a moment later, is a message.
    expect(alertFromMessage({ message: msg({ id: 43, created_at: '2026-01-01T10:00:00.300Z' }), conversation: conv() })?.kind).toBe('message');
  });

  it('never alerts for agent replies, bot answers, system lines or notes', () => {
    for (const sender_type of ['user', 'bot', 'system', 'note']) {
      expect(alertFromMessage({ message: msg({ sender_type: sender_type as MessageDto['sender_type'] }), conversation: conv() }), sender_type).toBeNull();
    }
    expect(alertFromMessage(undefined)).toBeNull();
  });

  it('names an anonymous visitor, says an image was sent, and cuts long texts', () => {
    expect(alertFromMessage({ message: msg({ message: '', file_path: 'a/b.png' }), conversation: conv({ visitor_name: ' ' }) })).toMatchObject({
      title: 'New message from Anonymous',
      body: 'Sent an image',
    });
    const long = alertFromMessage({ message: msg({ message: 'x'.repeat(300) }) });
    expect(long?.body).toBe(`${'x'.repeat(120)}...`);
  });
});

describe('alertFromAssignment', () => {
  it('alerts when a known conversation moves to me, from nobody or someone else', () => {
    expect(alertFromAssignment(conv({ assignee_id: 7 }), null, 7, 1)).toMatchObject({ kind: 'assigned', title: 'Conversation with Ada assigned to you', key: 'assigned:v1:1' });
    expect(alertFromAssignment(conv({ assignee_id: 7 }), 3, 7, 2)?.kind).toBe('assigned');
  });

  it('stays quiet when it was already mine, is someone else\'s, or its assignee was unknown', () => {
    expect(alertFromAssignment(conv({ assignee_id: 7 }), 7, 7, 1)).toBeNull();
    expect(alertFromAssignment(conv({ assignee_id: 3 }), null, 7, 1)).toBeNull();
    expect(alertFromAssignment(conv({ assignee_id: 7 }), undefined, 7, 1)).toBeNull();
  });
});

describe('titleWithUnread', () => {
  it('puts the unread count in front, replaces an old count and drops it at zero', () => {
    expect(titleWithUnread('Parley', 3)).toBe('(3) Parley');
    expect(titleWithUnread('(3) Parley', 5)).toBe('(5) Parley');
    expect(titleWithUnread('(5) Parley', 0)).toBe('Parley');
    expect(titleWithUnread('Parley', 250)).toBe('(99+) Parley');
    expect(titleWithUnread('(99+) Parley', 1)).toBe('(1) Parley');
  });

  it('sums the unread messages of all conversations', () => {
    expect(totalUnread({ a: 2, b: 0, c: 1 })).toBe(3);
    expect(totalUnread({})).toBe(0);
  });
});

describe('shouldAlert', () => {
  it('alerts only while no console tab is visible; a silent tab no longer counts', () => {
    const now = 100_000;
    expect(shouldAlert([{ visible: false, at: now }], now)).toBe(true);
    expect(shouldAlert([{ visible: false, at: now }, { visible: true, at: now - 1000 }], now)).toBe(false);
    expect(shouldAlert([{ visible: false, at: now }, { visible: true, at: now - TAB_STALE_MS - 1 }], now)).toBe(true);
  });
});

describe('SeenKeys', () => {
  it('lets each key through once and forgets the oldest beyond its size', () => {
    const seen = new SeenKeys(2);
    expect(seen.add('a')).toBe(true);
    expect(seen.add('a')).toBe(false);
    expect(seen.add('b')).toBe(true);
    expect(seen.add('c')).toBe(true);
    expect(seen.add('a')).toBe(true); // forgotten
    expect(seen.add('c')).toBe(false);
  });
});
