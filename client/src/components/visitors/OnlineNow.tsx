import { Link } from '@tanstack/react-router';
import { Icon } from '../icons';
import { avatarStyle, initial } from '../../lib/format';
import { type VisitorRow, useVisitors } from '../../stores/visitors';
import { visitorName } from './VisitorCard';

/** A page address as people read it: host and path, without the scheme. */
export function pageLabel(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

/** "Online now": visitors with the widget open, live from presence and page events (issue 16). */
export function OnlineNow({ onStart }: { onStart: (v: VisitorRow) => void }) {
  const online = useVisitors((s) => s.online);
  const total = useVisitors((s) => s.onlineTotal);
  return (
    <section className="card" aria-labelledby="online-now-title" style={{ marginBottom: 24 }}>
      <h2 id="online-now-title" style={{ fontSize: 16, marginTop: 0, display: 'flex', alignItems: 'center', gap: 8 }}>
        <span className="presence-dot" aria-hidden="true" style={{ width: 10, height: 10, borderRadius: 5, background: total > 0 ? '#22a06b' : '#a0aec0', display: 'inline-block' }} />
        Online now <span className="badge badge-gray">{total}</span>
      </h2>
      {online.length === 0 ? (
        <p className="muted" style={{ margin: 0 }}>Nobody is on your website right now.</p>
      ) : (
        <ul aria-label="Visitors online now" style={{ listStyle: 'none', padding: 0, margin: 0, display: 'grid', gap: 10 }}>
          {online.map((v, i) => (
            <li key={v.id} style={{ display: 'flex', alignItems: 'center', gap: 12, minWidth: 0 }}>
              <span className={`avatar avatar-sm ${avatarStyle(i)}`} aria-hidden="true">{initial(v.name)}</span>
              <div style={{ minWidth: 0, flex: 1 }}>
                <div className="cell-user-name">{visitorName(v)}</div>
                <div className="cell-user-sub" style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }} title={v.current_page}>
                  {v.current_page ? <>On <span data-testid="current-page">{pageLabel(v.current_page)}</span></> : 'Page unknown'}
                </div>
              </div>
              <Link
                to="/conversations"
                search={{ visitor: v.id }}
                className="btn btn-primary btn-sm"
                onClick={() => onStart(v)}
                aria-label={`Start Chat with ${visitorName(v)}`}
              >
                <Icon.chat /> Start Chat
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
