import { shortDateTime } from '../../lib/format';
import type { ChatMessage } from '../../stores/conversations';
import './inbox.css';

/** A private note in the thread: yellow, labelled, with its author; the visitor never sees it. */
export function NoteMessage({ m }: { m: ChatMessage }) {
  return (
    <div className="msg msg-note" data-message-id={m.id} data-sender="note">
      <div className="note-bubble">
        <span className="note-label">Private note · {m.author_name || 'Team'}</span>
        {m.message}
      </div>
      <span className="msg-time">{shortDateTime(m.created_at)}</span>
    </div>
  );
}
