import { NEAR_BOTTOM_PX, SCROLL_IDLE_MS, type ConversationDto } from '@parley/shared';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { MessageImage } from '../storage/MessageImage';
import { initial, plural, shortDateTime, visitorName } from '../../lib/format';
import type { ChatMessage } from '../../stores/conversations';
import { Banner, Spinner } from '../ui';
import { Icon } from '../icons';
import { Composer } from './Composer';

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
}

function MessageItem({ m }: { m: ChatMessage }) {
  const out = m.sender_type === 'user';
  const who = out ? m.author_name || 'You' : m.sender_type === 'bot' ? 'AI assistant' : 'Visitor';
  const image = m.file_path ? <MessageImage filePath={m.file_path} alt={`Attachment from ${who}`} /> : null;
  return (
    <div className={`msg ${out ? 'msg-out' : 'msg-in'}${m.pending ? ' msg-pending' : ''}`} data-message-id={m.pending ? undefined : m.id}>
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
        {m.pending ? 'Sending...' : shortDateTime(m.created_at)}
      </span>
    </div>
  );
}

/**
 * Right panel: messages and composer. Scroll rules of SPEC.md section 4: more than 50 px above
 * the bottom counts as "scrolled up" (arrivals feed the 'N new message(s)' button); otherwise the
 * view follows new messages unless the user is actively scrolling (idle after 150 ms).
 */
export function ChatView(props: Props) {
  const { conversation, visitorId, messages, loading, error, sendError, typing, online, canAttach } = props;
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
    forceBottom.current = true;
  }, [visitorId]);

  useLayoutEffect(() => {
    const fresh = messages.filter((m) => !m.pending && !seen.current.has(m.id));
    const first = seen.current.size === 0;
    for (const m of fresh) seen.current.add(m.id);
    const ownPending = messages.some((m) => m.pending);
    if (forceBottom.current || first || ownPending) {
      if (messages.length) forceBottom.current = false;
      toBottom();
      return;
    }
    if (scrolledUp.current) {
      const arrivals = fresh.filter((m) => m.sender_type !== 'user').length;
      if (arrivals) setNewCount((n) => n + arrivals);
    } else if (!scrolling.current) {
      toBottom();
    }
  }, [messages, toBottom]);

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
  };
  useEffect(() => () => clearTimeout(idleTimer.current), []);

  const visitorNameRaw = conversation?.visitor_name ?? props.visitor?.name;
  const name = visitorName(visitorNameRaw);
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
      </div>
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
          messages.map((m) => <MessageItem key={m.pending && m.client_id ? m.client_id : m.id} m={m} />)
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
      <Composer disabled={!visitorId} canAttach={canAttach} onSend={props.onSend} onTyping={props.onTyping} />
    </section>
  );
}
