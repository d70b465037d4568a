import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client.js';
import type { JobsSettings } from '../jobs/config.js';
import type { JobName } from '../jobs/registry.js';
import { JOB_TOPIC } from '../jobs/types.js';
import type { OutboxEntry } from '../outbox/outbox.js';
import { isAgentOnline } from '../services/presence.js';
import type { NotificationKind } from './compose.js';

/**
 * A job a stored message may cause (notifications, the agent-reply email, learning). sendMessage
 * records the ones that apply in the same transaction (or statement) as the message, so a
 * message is never stored without its jobs, even if the node dies right after the commit; the
 * jobs decide (toggles, answers, windows, budget, presence) when they run.
 */
export interface MessageJobRule {
  name: JobName;
  /**
   * One unfinished job per conversation and kind: the key is this prefix and the conversation id
   * (later triggers join it). null: every message gets its own job.
   */
  dedupePrefix: string | null;
  delayMs: number;
  /** 'opened': the message opened the conversation; 'firstUnread': the first visitor message since the last answer or read; 'always'. */
  when: 'opened' | 'firstUnread' | 'always';
  /** The payload names the message (missed chat: the message that must be answered). */
  withMessageId: boolean;
}

/** The dedupe key of a conversation's pending notification job of one kind (cancel uses it too). */
export const notifyDedupeKey = (kind: NotificationKind | 'visitorReply', conversationId: number) => `notify:${kind}:${conversationId}`;

const rule = (kind: NotificationKind, when: MessageJobRule['when'], delayMs = 0): MessageJobRule => ({
  name: `notify.${kind}`,
  dedupePrefix: notifyDedupeKey(kind, 0).slice(0, -1),
  delayMs,
  when,
  withMessageId: kind === 'missedChat',
});

/** What decides a message's jobs, known before it is stored. */
export interface MessageJobFacts {
  accountId: string;
  senderType: string;
  /** The visitor left an email: an agent's reply may be emailed to them while they are away. */
  visitorHasEmail: boolean;
  /** Sent through the widget's offline form: it emails the owner even while agents are online. */
  offlineForm: boolean;
}

/**
 * The jobs a message may cause, decided before it is stored.
 * - A visitor message: a new chat, an offline message when no agent is online (presence is
 *   cached per node, so this costs no query while agents are connected) or when it came through
 *   the offline form, and the missed-chat check at the first unanswered message of a stretch
 *   (later ones join it).
 * - An agent's reply: the assistant learns from it (one job per reply), and, when the visitor
 *   left an email, one delayed email per burst of replies (the job skips it if the visitor is
 *   back in the chat by then).
 */
export async function messageJobRules(db: Db, settings: JobsSettings, m: MessageJobFacts): Promise<MessageJobRule[]> {
  if (m.senderType === 'user') {
    const rules: MessageJobRule[] = [{ name: 'ai.learnFromReply', dedupePrefix: null, delayMs: 0, when: 'always', withMessageId: true }];
    if (m.visitorHasEmail) {
      rules.push({
        name: 'notify.visitorReply',
        dedupePrefix: notifyDedupeKey('visitorReply', 0).slice(0, -1),
        delayMs: settings.visitorReplyDelayMs,
        when: 'always',
        withMessageId: true,
      });
    }
    return rules;
  }
  if (m.senderType !== 'visitor') return [];
  const rules = [rule('newChat', 'opened'), rule('missedChat', 'firstUnread', settings.missedChatDelayMs)];
  if (m.offlineForm || !(await isAgentOnline(db, m.accountId))) rules.push(rule('offlineMessage', 'always'));
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
    dedupeKey: r.dedupePrefix === null ? undefined : `${r.dedupePrefix}${m.conversationId}`,
    delayMs: r.delayMs,
  };
}
