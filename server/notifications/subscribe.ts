import type { Db } from '../db/client.js';
import type { JobQueue } from '../jobs/types.js';
import type { DomainEvents } from '../services/domainEvents.js';
import { chatLimitNoticeSent } from './chatLimit.js';
import { notifyDedupeKey } from './messageJobs.js';

/**
 * Reactions to events that are not in a message's own write. A message's notification and
 * learning jobs are recorded with the message itself (commands/sendMessage.ts, rules in messageJobs.ts).
 */
export function subscribeNotifications(deps: { db: Db; events: DomainEvents; jobs: JobQueue }): void {
  const { db, events, jobs } = deps;

  events.on('message.stored', async (e) => {
    // An agent answered: the missed-chat check waiting on this conversation is not needed. A
    // cancel that never happens (a crash) is harmless: the job checks for an answer when it runs.
    if (e.message.senderType === 'user') await jobs.cancel(notifyDedupeKey('missedChat', e.conversation.id));
  }, { background: true });

  // Every refused visitor emits this; the owner hears about it once a month.
  events.on('chat.limitReached', async (e) => {
    if (await chatLimitNoticeSent(db, e.accountId, e.month)) return;
    await jobs.enqueue('notify.chatLimit', { accountId: e.accountId, month: e.month }, { dedupeKey: `notify:chatLimit:${e.accountId}:${e.month}` });
  }, { background: true });
}
