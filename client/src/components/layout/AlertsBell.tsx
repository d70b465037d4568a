import { useNavigate } from '@tanstack/react-router';
import { useCallback, useEffect, useRef, useState } from 'react';
import { shortTime } from '../../lib/format';
import { useAlerts } from '../../stores/alerts';
import { useConversations } from '../../stores/conversations';
import { Icon } from '../icons';

/** Opens a visitor's conversation in the message center (bell entries, notification clicks). */
export function useOpenConversation(): (visitorId: string) => void {
  const navigate = useNavigate();
  return useCallback(
    (visitorId: string) => {
      void navigate({ to: '/conversations', search: { visitor: visitorId } });
      // Already on the message center with this ?visitor: select it all the same.
      useConversations.getState().select(visitorId);
    },
    [navigate],
  );
}

/** The header bell: the latest events of this session, newest first; "Mark all read" clears them. */
export function AlertsBell() {
  const events = useAlerts((s) => s.events);
  const unseen = useAlerts((s) => s.unseen);
  const markAllRead = useAlerts((s) => s.markAllRead);
  const open = useOpenConversation();
  const [shown, setShown] = useState(false);
  const root = useRef<HTMLDivElement>(null);

  // A click elsewhere or Escape closes the list.
  useEffect(() => {
    if (!shown) return;
    const onDown = (e: PointerEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setShown(false);
    };
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setShown(false);
    document.addEventListener('pointerdown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [shown]);

  return (
    <div className="bell-wrap" ref={root}>
      <button
        type="button"
        className="icon-btn bell-btn"
        aria-label={unseen > 0 ? `Notifications (${unseen} new)` : 'Notifications'}
        aria-expanded={shown}
        aria-controls="alerts-panel"
        onClick={() => setShown((v) => !v)}
      >
        <Icon.bell />
        {unseen > 0 && <span className="bell-dot" aria-hidden="true" />}
      </button>
      {shown && (
        <section id="alerts-panel" className="alerts-panel" aria-label="Notifications">
          <div className="alerts-panel-head">
            <strong>Notifications</strong>
            <button type="button" className="btn btn-ghost btn-sm" disabled={events.length === 0} onClick={markAllRead}>
              Mark all read
            </button>
          </div>
          {events.length === 0 ? (
            <p className="alerts-empty">No new notifications</p>
          ) : (
            <ul className="alerts-list">
              {events.map((ev) => (
                <li key={ev.key}>
                  <button
                    type="button"
                    className="alerts-item"
                    onClick={() => {
                      setShown(false);
                      open(ev.visitor_id);
                    }}
                  >
                    <span className="alerts-item-title">{ev.title}</span>
                    {ev.body && <span className="alerts-item-body">{ev.body}</span>}
                    <span className="alerts-item-time">{shortTime(ev.at)}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </div>
  );
}
