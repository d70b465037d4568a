import type { FastifyBaseLogger } from 'fastify';
import type { LabelDto, MessageAiDto } from '@parley/shared';
import type { conversations, messages, visitors } from '../db/schema.js';

type Row<T extends { $inferSelect: unknown }> = T['$inferSelect'];

/**
 * What happened, told after the write committed. The real-time layer, notifications (jobs) and
 * the AI assistant subscribe; commands and routes only emit. One place, so a new reaction to a
 * message never means editing the routes that store it.
 */
export interface DomainEventMap {
  /** A new message was stored (not emitted for a repeated client_id). */
  'message.stored': {
    accountId: string;
    message: Row<typeof messages>;
    conversation: Row<typeof conversations>;
    visitor: Row<typeof visitors>;
    authorName: string | null;
    /** True when this message opened the conversation. */
    conversationCreated: boolean;
    /** Issue 17: the assistant's answer this bot message is (pushed with it). */
    ai?: MessageAiDto | undefined;
    /** The widget socket that sent it: its ack carries the message, so the visitor's push skips that socket (its other tabs get it). */
    originSocketId?: string | undefined;
  };
  /** A private note was added to a conversation: the team's consoles only, never the visitor. */
  'note.stored': {
    accountId: string;
    message: Row<typeof messages>;
    conversation: Row<typeof conversations>;
    visitor: Row<typeof visitors>;
    authorName: string;
  };
  /** A conversation's labels were set (`labels` is the whole new set). */
  'conversation.labeled': {
    accountId: string;
    conversation: Row<typeof conversations>;
    visitor: Row<typeof visitors>;
    labels: LabelDto[];
  };
  /** A visitor's details or page changed. */
  'visitor.updated': { accountId: string; visitor: Row<typeof visitors>; pageChanged: boolean; detailsChanged?: boolean };
  /** Conversations changed assignee (team assignment, member deleted). */
  'conversations.assigned': { accountId: string; conversationIds: number[] };
  /**
   * Sessions ended (logout, password change, member or account deleted): their live sockets
   * must close at once. Any combination of the fields narrows or widens what is closed.
   */
  'sessions.revoked': { tokenHash?: string; userId?: number; exceptTokenHash?: string; accountId?: string };
  /**
   * A member's status changed: their live sockets close at once, so none goes on under the old
   * rights (the console reconnects and reloads the user).
   */
  'user.statusChanged': { accountId: string; userId: number; status: 'active' | 'disabled' };
  /** A conversation was read by an agent (unread reset). */
  'conversation.read': { accountId: string; conversation: Row<typeof conversations>; visitor: Row<typeof visitors>; lastId: number };
  /**
   * A conversation's status or assignee changed (issue 16): `line` is the system line written
   * with it. Pushed to the audience before (`previousAssigneeId`) and after the change.
   */
  'conversation.changed': {
    accountId: string;
    conversation: Row<typeof conversations>;
    visitor: Row<typeof visitors>;
    previousAssigneeId: number | null;
    assigneeName: string | null;
    line: Row<typeof messages> | null;
    /** The line's author (null when the product acted: a visitor reopening, a job, routing). */
    lineAuthorName: string | null;
  };
  /** A member changed availability (online/away): the account's widgets may need to know. */
  'agents.availabilityChanged': { accountId: string };
  /** A visitor rated a conversation (issue 14 webhooks: `rating.given`). `rating` is the RatingDto. */
  'rating.given': { accountId: string; conversation: Row<typeof conversations>; visitor: Row<typeof visitors>; rating: Record<string, unknown> };
  /** A visitor's new chat was refused: the account used its plan's chats of `month` ('YYYY-MM', UTC). */
  'chat.limitReached': { accountId: string; month: string };
}

type Handler<K extends keyof DomainEventMap> = (payload: DomainEventMap[K]) => Promise<void> | void;

export class DomainEvents {
  private handlers = new Map<keyof DomainEventMap, { run: Handler<never>; background: boolean }[]>();
  private pending = new Set<Promise<unknown>>();
  constructor(private log: FastifyBaseLogger) {}

  /**
   * `background: true` for slow reactions (learning, auto-answers, mail): the request that
   * emitted does not wait for them. Quick ones (socket pushes) run before emit returns.
   */
  on<K extends keyof DomainEventMap>(name: K, handler: Handler<K>, opts: { background?: boolean } = {}): void {
    const list = this.handlers.get(name) ?? [];
    list.push({ run: handler as Handler<never>, background: opts.background ?? false });
    this.handlers.set(name, list);
  }

  /** Runs every handler; one failing is logged and never fails the request that emitted. */
  async emit<K extends keyof DomainEventMap>(name: K, payload: DomainEventMap[K]): Promise<void> {
    const list = (this.handlers.get(name) ?? []) as { run: Handler<K>; background: boolean }[];
    const run = (h: Handler<K>) =>
      Promise.resolve()
        .then(() => h(payload))
        .catch((err: unknown) => this.log.error({ err, event: name }, 'domain event handler failed'));
    for (const h of list.filter((x) => x.background)) {
      const p = run(h.run).finally(() => this.pending.delete(p));
      this.pending.add(p);
    }
    await Promise.all(list.filter((x) => !x.background).map((h) => run(h.run)));
  }

  /** Waits for every background reaction started so far (tests, and shutdown). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
