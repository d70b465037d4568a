import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client.js';
import type { JobsSettings } from '../jobs/config.js';
import { JOB_TOPIC } from '../jobs/types.js';
import type { OutboxEntry } from '../outbox/outbox.js';
import { isAgentOnline } from '../services/presence.js';
import type { NotificationKind } from './compose.js';

/**
 * A notification job a stored message may cause. sendMessage records the ones that apply in the
 * same transaction (or statement) as the message, so a chat is never stored without its
 * notifications; the jobs decide (toggles, answers, windows, budget) when they run.
 */
export interface MessageJobRule {
  name: `notify.${NotificationKind}`;
  /** One unfinished job per conversation and kind: the key is this prefix and the conversation id (later triggers join it). */
  dedupePrefix: string;
  delayMs: number;
  /** 'opened': the message opened the conversation; 'firstUnread': the first visitor message since the last answer or read; 'always'. */
  when: 'opened' | 'firstUnread' | 'always';
  /** The payload names the message (missed chat: the message that must be answered). */
  withMessageId: boolean;
}

/** The dedupe key of a conversation's pending notification job of one kind (cancel uses it too). */
export const notifyDedupeKey = (kind: NotificationKind, conversationId: number) => `notify:${kind}:${conversationId}`;

const rule = (kind: NotificationKind, when: MessageJobRule['when'], delayMs = 0): MessageJobRule => ({
  name: `notify.${kind}`,
  dedupePrefix: notifyDedupeKey(kind, 0).slice(0, -1),
  delayMs,
  when,
  withMessageId: kind === 'missedChat',
});

/**
 * The notification jobs a message may cause, decided before it is stored. Only visitor messages
 * cause any: a new chat, an offline message when no agent is online (presence is cached per
 * node, so this costs no query while agents are connected), and the missed-chat check at the
 * first unanswered message of a stretch (later ones join it).
 */
export async function messageJobRules(db: Db, settings: JobsSettings, m: { accountId: string; senderType: string }): Promise<MessageJobRule[]> {
  if (m.senderType !== 'visitor') return [];
  const rules = [rule('newChat', 'opened'), rule('missedChat', 'firstUnread', settings.missedChatDelayMs)];
  if (!(await isAgentOnline(db, m.accountId))) rules.push(rule('offlineMessage', 'always'));
  return rules;
}

export function ruleApplies(r: MessageJobRule, c: { opened: boolean; unreadCount: number }): boolean {
  return r.when === 'always' || (r.when === 'opened' && c.opened) || (r.when === 'firstUnread' && c.unreadCount <= 1);
}

/** The outbox entry of a rule for a stored message (the SQL of sendMessage's one statement builds the same). */
export function ruleEntry(r: MessageJobRule, m: { accountId: string; conversationId: number; messageId: number }): OutboxEntry {
  return {
    topic: JOB_TOPIC,
    name: r.name,
    payload: { accountId: m.accountId, conversationId: m.conversationId, key: randomUUID(), ...(r.withMessageId ? { messageId: m.messageId } : {}) },
    dedupeKey: `${r.dedupePrefix}${m.conversationId}`,
    delayMs: r.delayMs,
  };
}
