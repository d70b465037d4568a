import type { ConversationDto } from '@parley/shared';
import { avatarStyle, initial, preview, shortDateTime, visitorName } from '../../lib/format';
import { Banner, Spinner } from '../ui';
import { Icon } from '../icons';

interface Props {
  conversations: ConversationDto[];
  total: number;
  loading: boolean;
  error: string;
  selectedId: string | null;
  online: Record<string, boolean>;
  typing: Record<string, boolean>;
  searching: boolean;
  onSelect: (visitorId: string) => void;
}

/** Left panel of the message center: '{n} active conversations' and the list. */
export function ConversationList({ conversations, total, loading, error, selectedId, online, typing, searching, onSelect }: Props) {
  return (
    <section className="mc-list" aria-labelledby="mc-list-title">
      <div className="mc-list-head">
        <h2 id="mc-list-title">Conversations</h2>
        <p className="muted" style={{ fontSize: 13 }}>
          {total} active conversations
        </p>
      </div>
      {error && (
        <div className="mc-error">
          <Banner kind="error">{error}</Banner>
        </div>
      )}
      {loading ? (
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
            return (
              <li key={c.visitor_id}>
                <button type="button" className="conv-item" aria-current={c.visitor_id === selectedId ? 'true' : undefined} onClick={() => onSelect(c.visitor_id)}>
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
                    <span className="conv-meta">
                      <span className="conv-preview" style={{ flex: 1 }}>
                        {typing[c.visitor_id] ? <em>typing...</em> : preview(c.last_message)}
                      </span>
                      {c.unread_count > 0 && c.visitor_id !== selectedId && (
                        <span className="unread">
                          {c.unread_count}
                        </span>
                      )}
                    </span>
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
