import { shortDateTime, visitorName } from '../../lib/format';
import type { SearchHit } from '../../stores/conversations';
import { Banner, Spinner } from '../ui';
import { highlightParts } from './thread';

interface Props {
  query: string;
  results: SearchHit[] | null;
  loading: boolean;
  error: string;
  hasMore: boolean;
  onMore: () => void;
  onOpen: (hit: SearchHit) => void;
}

/** Server search results (messages, visitor names and emails) with the matches highlighted. */
export function SearchResults({ query, results, loading, error, hasMore, onMore, onOpen }: Props) {
  return (
    <div className="search-results">
      {error && <Banner kind="error">{error}</Banner>}
      {!results && loading ? (
        <div className="loading-block">
          <Spinner />
          <p>Searching...</p>
        </div>
      ) : results && results.length === 0 ? (
        <div className="empty">
          <h3>No conversations match your search</h3>
          <p>Nothing found for “{query.trim()}”.</p>
        </div>
      ) : (
        <ul className="mc-list-items" aria-label="Search results">
          {(results ?? []).map((hit) => (
            <li key={`${hit.visitor_id}-${hit.message_id ?? 'visitor'}`}>
              <button type="button" className="conv-item search-hit" onClick={() => onOpen(hit)}>
                <span className="conv-main">
                  <span className="conv-top">
                    <span className="conv-name">{visitorName(hit.visitor_name)}</span>
                    <span className="conv-time">{hit.created_at ? shortDateTime(hit.created_at) : ''}</span>
                  </span>
                  <span className="search-snippet">
                    {highlightParts(hit.snippet ?? '', hit.highlights).map((p, i) =>
                      // biome-ignore lint/suspicious/noArrayIndexKey: parts of one fixed string, never reordered
                      p.hit ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>,
                    )}
                  </span>
                </span>
              </button>
            </li>
          ))}
          {hasMore && (
            <li className="mc-list-more">
              <button type="button" className="btn btn-ghost btn-sm" disabled={loading} onClick={onMore}>
                {loading ? 'Loading...' : 'More results'}
              </button>
            </li>
          )}
        </ul>
      )}
    </div>
  );
}
