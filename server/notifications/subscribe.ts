import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client.js';
import type { JobsSettings } from '../jobs/config.js';
import type { JobQueue } from '../jobs/types.js';
import type { DomainEvents } from '../services/domainEvents.js';
import { isAgentOnline } from '../services/presence.js';
import { chatLimitNoticeSent } from './chatLimit.js';
import type { NotificationKind } from './compose.js';

const JOB: Record<NotificationKind, 'notify.newChat' | 'notify.offlineMessage' | 'notify.missedChat'> = {
  newChat: 'notify.newChat',
  offlineMessage: 'notify.offlineMessage',
  missedChat: 'notify.missedChat',
};

/** One pending job per conversation and kind holds this key (enqueue joins it, cancel drops it). */
const dedupeKeyOf = (kind: NotificationKind, conversationId: number) => `notify:${kind}:${conversationId}`;

/** Turns chat events into notification jobs; the jobs decide (toggles, answers, window) when they run. */
export function subscribeNotifications(deps: { db: Db; events: DomainEvents; jobs: JobQueue; settings: JobsSettings }): void {
  const { db, events, jobs, settings } = deps;

  /**
   * One pending job per conversation and kind (later triggers join it). The job itself waits
   * for the end of the batching window since the last email (notifyOwner defers): a busy
   * visitor gets one email, sent with the latest messages, instead of a flood, and a visitor
   * message costs no lookup here.
   */
  async function schedule(kind: NotificationKind, accountId: string, conversationId: number, delayMs = 0, messageId?: number) {
    await jobs.enqueue(
      JOB[kind],
      { accountId, conversationId, key: randomUUID(), ...(messageId !== undefined ? { messageId } : {}) },
      { delayMs, dedupeKey: dedupeKeyOf(kind, conversationId) },
    );
  }

  events.on('message.stored', async (e) => {
    const conversationId = e.conversation.id;
    if (e.message.senderType === 'user') {
      // An agent answered: the missed-chat check waiting on this conversation is not needed.
      await jobs.cancel(dedupeKeyOf('missedChat', conversationId));
      return;
    }
    if (e.message.senderType !== 'visitor') return;
    if (e.conversationCreated) await schedule('newChat', e.accountId, conversationId);
    if (!(await isAgentOnline(db, e.accountId))) await schedule('offlineMessage', e.accountId, conversationId);
    // The missed-chat clock starts at the first visitor message since the last answer (or read;
    // a new conversation's first message too): later ones join that stretch, so a visitor
    // writing on costs no job write per message.
    if (e.conversation.unreadCount <= 1) {
      await schedule('missedChat', e.accountId, conversationId, settings.missedChatDelayMs, e.message.id);
    }
    // Background: a send's ack never waits for presence lookups or job writes. A missed-chat job
    // that lands after the agent's cancel is harmless: it checks for an answer when it runs.
  }, { background: true });

  events.on('offline.message', (e) => schedule('offlineMessage', e.accountId, e.conversationId), { background: true });

  // Every refused visitor emits this; the owner hears about it once a month.
  events.on('chat.limitReached', async (e) => {
    if (await chatLimitNoticeSent(db, e.accountId, e.month)) return;
    await jobs.enqueue('notify.chatLimit', { accountId: e.accountId, month: e.month }, { dedupeKey: `notify:chatLimit:${e.accountId}:${e.month}` });
  }, { background: true });
}
