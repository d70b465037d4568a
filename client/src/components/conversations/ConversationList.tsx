import { LabelChips } from '../inbox/LabelChips';
import { useEffect, useRef } from 'react';
import { avatarStyle, initial, preview, shortDateTime, visitorName } from '../../lib/format';
import { type InboxConversation, statusOf } from '../../stores/conversationLogic';
import { Banner, Spinner } from '../ui';
import { Icon } from '../icons';
import { InboxFilters, type InboxFiltersProps } from './InboxFilters';
import './inbox.css';

interface Props extends InboxFiltersProps {
  conversations: InboxConversation[];
  /** '{n} active conversations' (SPEC.md): conversations not resolved, over every page. */
  activeCount: number;
  loading: boolean;
  error: string;
  selectedId: string | null;
  online: Record<string, boolean>;
  typing: Record<string, boolean>;
  searching: boolean;
  hasMore: boolean;
  moreLoading: boolean;
  onLoadMore: () => void;
  onSelect: (visitorId: string) => void;
  /** Shown instead of the list (server search results). */
  replaceList?: React.ReactNode;
}

const STATUS_LABEL: Record<string, string> = { pending: 'Snoozed', resolved: 'Resolved' };

/** Left panel of the message center: '{n} active conversations', the filters and the paged list. */
export function ConversationList(props: Props) {
  const { conversations, activeCount, loading, error, selectedId, online, typing, searching, hasMore, moreLoading, onLoadMore, onSelect } = props;
  const sentinel = useRef<HTMLLIElement>(null);
  const onLoadMoreRef = useRef(onLoadMore);
  onLoadMoreRef.current = onLoadMore;

  // Infinite scroll: the next page loads when the end of the list comes into view (observed
  // again after each page, since the sentinel may still be in view).
  // biome-ignore lint/correctness/useExhaustiveDependencies: conversations.length re-arms the observer
  useEffect(() => {
    const el = sentinel.current;
    if (!el || !hasMore) return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && onLoadMoreRef.current(), { rootMargin: '200px' });
    io.observe(el);
    return () => io.disconnect();
  }, [hasMore, conversations.length]);

  return (
    <section className="mc-list" aria-labelledby="mc-list-title">
      <div className="mc-list-head">
        <h2 id="mc-list-title">Conversations</h2>
        <p className="muted" style={{ fontSize: 13 }}>
          {activeCount} active conversations
        </p>
      </div>
      <InboxFilters filter={props.filter} counts={props.counts} onFilter={props.onFilter} />
      {error && (
        <div className="mc-error">
          <Banner kind="error">{error}</Banner>
        </div>
      )}
      {props.replaceList ? (
        props.replaceList
      ) : loading ? (
        <div className="loading-block">
          <Spinner />
          <p>Loading conversations...</p>
        </div>
      ) : conversations.length === 0 ? (
        <div className="empty">
          <div className="empty-icon">
            <Icon.chat />
          </div>
          {searching ? (
            <h3>No conversations match your search</h3>
          ) : (
            <>
              <h3>No conversations found</h3>
              <p>Start chatting with visitors to see conversations here.</p>
            </>
          )}
        </div>
      ) : (
        <ul className="mc-list-items" aria-label="Conversation list">
          {conversations.map((c, i) => {
            const name = visitorName(c.visitor_name);
            const status = statusOf(c);
            const badge = STATUS_LABEL[status];
            return (
              <li key={c.visitor_id}>
                <button
                  type="button"
                  className="conv-item"
                  data-visitor-id={c.visitor_id}
                  aria-current={c.visitor_id === selectedId ? 'true' : undefined}
                  onClick={() => onSelect(c.visitor_id)}
                >
                  <span className="avatar-wrap">
                    <span className={`avatar avatar-md ${avatarStyle(i)}`} aria-hidden="true">
                      {initial(c.visitor_name)}
                    </span>
                    {online[c.visitor_id] !== undefined && <span className={`presence${online[c.visitor_id] ? ' online' : ''}`} aria-hidden="true" />}
                  </span>
                  <span className="conv-main">
                    <span className="conv-top">
                      <span className="conv-name">{name}</span>
                      <span className="conv-time">{c.last_message_at ? shortDateTime(c.last_message_at) : ''}</span>
                    </span>
                    <span className="conv-email" style={{ display: 'block' }}>
                      {c.visitor_email || 'No email'}
                    </span>
                    <LabelChips labels={c.labels} />
                    <span className="conv-meta">
                      <span className="conv-preview" style={{ flex: 1 }}>
                        {typing[c.visitor_id] ? <em>typing...</em> : preview(c.last_message)}
                      </span>
                      {badge && <span className={`conv-status conv-status-${status}`}>{badge}</span>}
                      {c.unread_count > 0 && c.visitor_id !== selectedId && <span className="unread">{c.unread_count}</span>}
                    </span>
                    {c.assignee_name && <span className="conv-assignee">{c.assignee_name}</span>}
                  </span>
                </button>
              </li>
            );
          })}
          {hasMore && (
            <li ref={sentinel} className="mc-list-more">
              <button type="button" className="btn btn-ghost btn-sm" disabled={moreLoading} onClick={onLoadMore}>
                {moreLoading ? 'Loading...' : 'Load more conversations'}
              </button>
            </li>
          )}
        </ul>
      )}
    </section>
  );
}
