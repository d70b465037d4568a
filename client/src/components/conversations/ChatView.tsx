import { isDocumentType } from '@parley/shared';
import { FileChip } from '../files/FileChip';
import { NEAR_BOTTOM_PX, SCROLL_IDLE_MS, type ConversationDto } from '@parley/shared';
import { type ReactNode, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { MessageImage } from '../storage/MessageImage';
import { initial, plural, shortTime, visitorName } from '../../lib/format';
import type { ChatMessage } from '../../stores/conversations';
import { Banner, Spinner } from '../ui';
import { Icon } from '../icons';
import { NoteMessage } from '../inbox/NoteMessage';
import { Composer } from './Composer';
import { buildThread } from './thread';
import './inbox.css';

/** Older history loads when the view is scrolled this close to its top. */
const OLDER_THRESHOLD_PX = 120;

interface Props {
  conversation: ConversationDto | null;
  /** Name and email of a visitor who has no conversation yet (opened from Visitors). */
  visitor?: { name: string; email: string };
  visitorId: string;
  messages: ChatMessage[];
  loading: boolean;
  error: string;
  sendError: string;
  typing: boolean;
  online: boolean | undefined;
  canAttach: boolean;
  onBack: () => void;
  onSend: (text: string, image: File | null) => void;
  onTyping: (typing: boolean) => void;
  onDismissSendError: () => void;
  /** Status and assignment controls (and whatever else the header hosts). */
  headerActions?: ReactNode;
  /** An error of a header action, dismissible. */
  actionError?: string;
  onDismissActionError?: () => void;
  /** Older history: whether more waits on the server, whether a page is loading, and the loader. */
  hasOlder?: boolean;
  olderLoading?: boolean;
  onLoadOlder?: () => void;
  /** A message to bring into view and mark (a search hit); `seq` changes on every jump. */
  jumpTo?: { messageId: number; seq: number } | null;
  /** Extra controls above the composer (canned replies, notes...). */
  composerExtra?: ReactNode;
  /** The newest message id the visitor has seen: team replies up to it show "Seen". */
  seenId?: number | null;
}

function MessageItem({ m, showName, visitor, seenId }: { m: ChatMessage; showName: boolean; visitor: string; seenId: number | null }) {
  if (m.sender_type === 'note') return <NoteMessage m={m} />;
  const out = m.sender_type === 'user';
  const who = out ? m.author_name || 'You' : m.sender_type === 'bot' ? 'AI assistant' : visitor;
  const image = !m.file_path ? null : isDocumentType(m.file_type ?? '') ? <FileChip name={m.file_name ?? ''} size={m.file_size ?? 0} filePath={m.file_path} /> : <MessageImage filePath={m.file_path} alt={`Attachment from ${who}`} />;
  return (
    <div className={`msg ${out ? 'msg-out' : 'msg-in'}${m.pending ? ' msg-pending' : ''}${showName ? ' msg-first' : ''}`} data-message-id={m.pending ? undefined : m.id}>
      {showName && <span className="msg-author">{who}</span>}
      {m.message ? (
        <div className="bubble">
          {image}
          {m.message}
        </div>
      ) : (
        image
      )}
      <span className="msg-time">
        {m.sender_type === 'bot' ? 'AI · ' : ''}
        {m.pending ? 'Sending...' : shortTime(m.created_at)}
        {out && !m.pending ? <SeenTick seen={seenId !== null && m.id <= seenId} /> : null}
      </span>
    </div>
  );
}

/** One tick once stored, two once the visitor's widget showed it. */
function SeenTick({ seen }: { seen: boolean }) {
  return (
    <span className={`msg-tick${seen ? ' msg-seen' : ''}`} title={seen ? 'Seen' : 'Sent'}>
      <span aria-hidden="true"> {seen ? '✓✓' : '✓'}</span>
      <span className="sr-only">{seen ? 'Seen' : 'Sent'}</span>
    </span>
  );
}

/** A system line ("Ada resolved the conversation"): centred and muted, not a bubble. */
function SystemLine({ m }: { m: ChatMessage }) {
  return (
    <div className="msg-system" data-message-id={m.id} role="note">
      <span>{m.message}</span> <span className="msg-system-time">{shortTime(m.created_at)}</span>
    </div>
  );
}

/**
 * Right panel: messages and composer. Scroll rules of SPEC.md section 4: more than 50 px above
 * the bottom counts as "scrolled up" (arrivals feed the 'N new message(s)' button); otherwise the
 * view follows new messages unless the user is actively scrolling (idle after 150 ms).
 */
export function ChatView(props: Props) {
  const { conversation, visitorId, messages, loading, error, sendError, typing, online, canAttach, hasOlder, olderLoading, onLoadOlder, jumpTo } = props;
  const box = useRef<HTMLDivElement>(null);
  const [newCount, setNewCount] = useState(0);
  const scrolledUp = useRef(false);
  const scrolling = useRef(false);
  const idleTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const seen = useRef<Set<number>>(new Set());
  const forceBottom = useRef(true);
  // True while the view scrolls itself to the bottom: the scroll events that follow are its own,
  // not the user's, and must not pause following new messages (scrolling) nor count as scrolled up.
  const selfScrolling = useRef(false);

  const toBottom = useCallback((smooth = false) => {
    const el = box.current;
    if (!el) return;
    scrolledUp.current = false;
    if (el.scrollHeight - el.scrollTop - el.clientHeight < 1) return;
    selfScrolling.current = true;
    el.scrollTo({ top: el.scrollHeight, behavior: smooth ? 'smooth' : 'auto' });
  }, []);

  // Only a person's input makes a scroll the user's own.
  const onUserInput = () => {
    selfScrolling.current = false;
  };

  // A different visitor: reset the counter and scroll flags.
  // biome-ignore lint/correctness/useExhaustiveDependencies: visitorId is the trigger, not an input
  useEffect(() => {
    setNewCount(0);
    scrolledUp.current = false;
    scrolling.current = false;
    seen.current = new Set();
    maxSeenId.current = 0;
    forceBottom.current = true;
  }, [visitorId]);

  // Older history prepended above: keep the message the user was reading where it was.
  const lastHeight = useRef(0);
  const maxSeenId = useRef(0);
  const jumped = useRef(0);
  useLayoutEffect(() => {
    const el = box.current;
    const fresh = messages.filter((m) => !m.pending && !seen.current.has(m.id));
    const first = seen.current.size === 0;
    for (const m of fresh) seen.current.add(m.id);
    const newer = fresh.filter((m) => m.id > maxSeenId.current);
    const prepended = !first && fresh.length > 0 && newer.length === 0;
    for (const m of newer) maxSeenId.current = Math.max(maxSeenId.current, m.id);
    const prevHeight = lastHeight.current;
    if (el) lastHeight.current = el.scrollHeight;
    // A search hit to bring into view: wins over following the bottom.
    if (jumpTo && jumpTo.seq !== jumped.current) {
      const target = el?.querySelector<HTMLElement>(`[data-message-id="${jumpTo.messageId}"]`);
      if (target) {
        jumped.current = jumpTo.seq;
        forceBottom.current = false;
        scrolledUp.current = true;
        target.scrollIntoView({ block: 'center' });
        target.classList.add('msg-found');
        setTimeout(() => target.classList.remove('msg-found'), 2500);
        return;
      }
    }
    if (prepended && el) {
      el.scrollTop += el.scrollHeight - prevHeight;
      return;
    }
    const ownPending = messages.some((m) => m.pending);
    if (forceBottom.current || first || ownPending) {
      if (messages.length) forceBottom.current = false;
      toBottom();
      return;
    }
    if (scrolledUp.current) {
      const arrivals = newer.filter((m) => m.sender_type !== 'user').length;
      if (arrivals) setNewCount((n) => n + arrivals);
    } else if (!scrolling.current) {
      toBottom();
    }
  }, [messages, toBottom, jumpTo]);

  const onScroll = () => {
    const el = box.current;
    if (!el) return;
    if (selfScrolling.current) {
      // The view's own scroll: done once it reaches the bottom.
      if (el.scrollHeight - el.scrollTop - el.clientHeight <= NEAR_BOTTOM_PX) selfScrolling.current = false;
      return;
    }
    scrolling.current = true;
    clearTimeout(idleTimer.current);
    idleTimer.current = setTimeout(() => {
      scrolling.current = false;
    }, SCROLL_IDLE_MS);
    const distance = el.scrollHeight - el.scrollTop - el.clientHeight;
    scrolledUp.current = distance > NEAR_BOTTOM_PX;
    if (!scrolledUp.current && newCount) setNewCount(0);
    lastHeight.current = el.scrollHeight;
    if (el.scrollTop < OLDER_THRESHOLD_PX && hasOlder && !olderLoading) onLoadOlder?.();
  };
  useEffect(() => () => clearTimeout(idleTimer.current), []);

  const visitorNameRaw = conversation?.visitor_name ?? props.visitor?.name;
  const name = visitorName(visitorNameRaw);
  const thread = useMemo(() => buildThread(messages), [messages]);
  return (
    <section className="mc-chat" aria-label={`Chat with ${name}`}>
      <div className="mc-chat-head">
        <button type="button" className="btn btn-ghost btn-sm mc-back" onClick={props.onBack}>
          <Icon.back /> Back to conversations
        </button>
        <span className="avatar-wrap">
          <span className="avatar avatar-md avatar-brand" aria-hidden="true">
            {initial(visitorNameRaw)}
          </span>
          {online !== undefined && <span className={`presence${online ? ' online' : ''}`} aria-hidden="true" />}
        </span>
        <div style={{ minWidth: 0 }}>
          <h2 className="mc-chat-title" style={{ fontSize: 16 }}>
            {name}
          </h2>
          <div className="mc-chat-sub">
            {conversation?.visitor_email || props.visitor?.email || 'No email'}
            {online !== undefined && <span> · {online ? 'Online' : 'Offline'}</span>}
          </div>
        </div>
        {props.headerActions}
      </div>
      {props.actionError && (
        <div style={{ padding: '8px 14px 0' }}>
          <Banner kind="error" onDismiss={props.onDismissActionError}>
            {props.actionError}
          </Banner>
        </div>
      )}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (axe scrollable-region-focusable) */}
      <div ref={box} className="mc-messages" onScroll={onScroll} onWheel={onUserInput} onTouchStart={onUserInput} onPointerDown={onUserInput} onKeyDown={onUserInput} aria-live="polite" aria-label="Messages" role="log" tabIndex={0}>
        {loading ? (
          <div className="loading-block">
            <Spinner />
            <p>Loading chat...</p>
          </div>
        ) : error ? (
          <Banner kind="error">{error}</Banner>
        ) : messages.length === 0 ? (
          <div className="empty">
            <h3>No messages yet</h3>
            <p>Start the conversation!</p>
          </div>
        ) : (
          <>
            {hasOlder && (
              <div className="mc-older">
                <button type="button" className="btn btn-ghost btn-sm" disabled={olderLoading} onClick={onLoadOlder}>
                  {olderLoading ? 'Loading older messages...' : 'Load older messages'}
                </button>
              </div>
            )}
            {thread.map((item) =>
              item.kind === 'day' ? (
                <div key={item.key} className="day-sep">
                  <span>{item.label}</span>
                </div>
              ) : item.kind === 'system' ? (
                <SystemLine key={item.key} m={item.message} />
              ) : (
                <MessageItem key={item.key} m={item.message} showName={item.firstOfGroup} visitor={name} seenId={props.seenId ?? null} />
              ),
            )}
          </>
        )}
        {typing && (
          <div className="typing" aria-live="polite">
            {name} is typing...
          </div>
        )}
      </div>
      {newCount > 0 && (
        <button
          type="button"
          className="btn btn-primary btn-sm new-msgs"
          onClick={() => {
            toBottom(true);
            setNewCount(0);
          }}
        >
          {plural(newCount, 'new message', 'new messages')}
        </button>
      )}
      {sendError && (
        <div style={{ padding: '0 14px' }}>
          <Banner kind="error" onDismiss={props.onDismissSendError}>
            {sendError}
          </Banner>
        </div>
      )}
      {props.composerExtra}
      <Composer disabled={!visitorId} canAttach={canAttach} onSend={props.onSend} onTyping={props.onTyping} visitorId={visitorId} visitorName={visitorNameRaw} />
    </section>
  );
}
