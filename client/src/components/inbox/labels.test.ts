import type { ConversationDto } from '@parley/shared';
import { describe, expect, it } from 'vitest';
import { keepHeldLabels, withLabel } from '../../lib/labels';

const vip = { id: 1, name: 'VIP', color: '#eab308' };
const conv = (visitor: string, extra: Partial<ConversationDto> = {}): ConversationDto => ({
  id: visitor.charCodeAt(0),
  visitor_id: visitor,
  visitor_name: visitor,
  visitor_email: '',
  last_message: '',
  last_message_at: '2024-01-01T00:00:00Z',
  status: 'open',
  snoozed_until: null,
  opened_at: '2024-01-01T00:00:00Z',
  resolved_at: null,
  assignee_id: null,
  unread_count: 0,
  created_at: '2024-01-01T00:00:00Z',
  ...extra,
});

describe('labels in the message center', () => {
  it('keeps the labels held when a push leaves them out, and takes a label change', () => {
    const held = conv('a', { labels: [vip] });
    expect(keepHeldLabels(conv('a', { last_message: 'new' }), held)).toMatchObject({ last_message: 'new', labels: [vip] });
    expect(keepHeldLabels(conv('a', { labels: [] }), held).labels).toEqual([]);
    expect(keepHeldLabels(conv('a'), undefined).labels).toBeUndefined();
  });

  it('filters by label, or not at all', () => {
    const list = [conv('a', { labels: [vip] }), conv('b', { labels: [] }), conv('c')];
    expect(withLabel(list, 1).map((c) => c.visitor_id)).toEqual(['a']);
    expect(withLabel(list, null)).toHaveLength(3);
  });
});
