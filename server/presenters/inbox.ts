import type { CannedReplyDto, LabelDto } from '@parley/shared';
import type { cannedReplies, labels } from '../db/schema.js';

export const presentCannedReply = (r: typeof cannedReplies.$inferSelect): CannedReplyDto => ({ id: r.id, title: r.title, text: r.text, shortcut: r.shortcut });

export const presentLabel = (l: Pick<typeof labels.$inferSelect, 'id' | 'name' | 'color'>): LabelDto => ({ id: l.id, name: l.name, color: l.color });
