import { useEffect, useId, useRef, useState } from 'react';
import { shortDateTime } from '../../lib/format';
import { type InboxConversation, type InboxStatus, statusOf } from '../../stores/conversationLogic';
import type { Member } from '../../stores/conversations';
import { SNOOZE_CHOICES, type SnoozeChoice, parseLocalDateTime, toLocalInput } from './snooze';

interface Props {
  conversation: InboxConversation | null;
  /** The signed-in user. */
  userId: number | null;
  /** Owner/Admin (the server's `conversations.readAll` permission): assign to anyone. */
  canAssignAnyone: boolean;
  members: Member[];
  busy: boolean;
  onStatus: (status: InboxStatus, snooze?: { snoozed_until?: string; snooze?: SnoozeChoice }) => void;
  onAssign: (userId: number | null) => void;
}

const STATUS_TEXT: Record<InboxStatus, string> = { open: 'Open', pending: 'Snoozed', resolved: 'Resolved' };

/**
 * The conversation header's work: its status (Resolve, Reopen, Snooze 1 h / tomorrow / next week /
 * a date) and its assignee (owner/Admin: anyone; Agent: claim an unassigned one or hand back
 * their own). The server enforces the same rules; a refusal shows as the header's error.
 */
export function ConversationActions({ conversation, userId, canAssignAnyone, members, busy, onStatus, onAssign }: Props) {
  const status = conversation ? statusOf(conversation) : null;
  const assigneeId = conversation?.assignee_id ?? null;
  const assigneeName = conversation?.assignee_name || members.find((m) => m.id === assigneeId)?.name || (assigneeId !== null ? 'a teammate' : '');
  const [snoozeOpen, setSnoozeOpen] = useState(false);
  const [date, setDate] = useState('');
  const menuId = useId();
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!snoozeOpen) return;
    const onDown = (e: MouseEvent) => box.current && !box.current.contains(e.target as Node) && setSnoozeOpen(false);
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setSnoozeOpen(false);
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [snoozeOpen]);

  const snooze = (choice: SnoozeChoice) => {
    setSnoozeOpen(false);
    onStatus('pending', { snooze: choice });
  };
  const picked = parseLocalDateTime(date);

  // The assignee control: a picker for owner/Admin, claim / hand back for an Agent.
  const options: Member[] = [...members];
  if (assigneeId !== null && !options.some((m) => m.id === assigneeId)) options.push({ id: assigneeId, name: assigneeName });

  return (
    <div className="conv-actions">
      <span className={`conv-status-pill conv-status-${status ?? 'open'}`} data-testid="conversation-status">
        {status ? STATUS_TEXT[status] : ''}
        {status === 'pending' && conversation?.snoozed_until ? ` until ${shortDateTime(conversation.snoozed_until)}` : ''}
      </span>
      {canAssignAnyone ? (
        <label className="conv-assign">
          <span className="sr-only">Assignee</span>
          <select
            className="input input-sm"
            aria-label="Assignee"
            value={assigneeId ?? ''}
            disabled={busy || !conversation}
            onChange={(e) => onAssign(e.target.value === '' ? null : Number(e.target.value))}
          >
            <option value="">Unassigned</option>
            {options.map((m) => (
              <option key={m.id} value={m.id}>
                {m.id === userId ? `${m.name} (me)` : m.name}
              </option>
            ))}
          </select>
        </label>
      ) : (
        <span className="conv-assignee-text" data-testid="conversation-assignee">
          {assigneeId === null ? 'Unassigned' : assigneeId === userId ? 'Assigned to you' : `Assigned to ${assigneeName}`}
        </span>
      )}
      {assigneeId !== userId && (canAssignAnyone || assigneeId === null) && (
        <button type="button" className="btn btn-secondary btn-sm" disabled={busy || userId === null} onClick={() => userId !== null && onAssign(userId)}>
          Assign to me
        </button>
      )}
      {!canAssignAnyone && assigneeId !== null && assigneeId === userId && (
        <button type="button" className="btn btn-secondary btn-sm" disabled={busy} onClick={() => onAssign(null)}>
          Unassign
        </button>
      )}
      {status !== 'resolved' ? (
        <button type="button" className="btn btn-primary btn-sm" disabled={busy} onClick={() => onStatus('resolved')}>
          Resolve
        </button>
      ) : (
        <button type="button" className="btn btn-primary btn-sm" disabled={busy} onClick={() => onStatus('open')}>
          Reopen
        </button>
      )}
      {status === 'pending' && (
        <button type="button" className="btn btn-secondary btn-sm" disabled={busy} onClick={() => onStatus('open')}>
          Unsnooze
        </button>
      )}
      <div className="snooze" ref={box}>
        <button type="button" className="btn btn-secondary btn-sm" aria-expanded={snoozeOpen} aria-controls={menuId} disabled={busy} onClick={() => setSnoozeOpen((o) => !o)}>
          Snooze
        </button>
        {snoozeOpen && (
          <div id={menuId} className="snooze-menu">
            {SNOOZE_CHOICES.map((c) => (
              <button key={c.value} type="button" onClick={() => snooze(c.value)}>
                {c.label}
              </button>
            ))}
            <form
              className="snooze-date"
              onSubmit={(e) => {
                e.preventDefault();
                if (!picked) return;
                setSnoozeOpen(false);
                onStatus('pending', { snoozed_until: picked.toISOString() });
              }}
            >
              <label>
                <span className="snooze-date-label">Until a date</span>
                <input type="datetime-local" className="input input-sm" aria-label="Snooze until" min={toLocalInput(new Date())} value={date} onChange={(e) => setDate(e.target.value)} />
              </label>
              <button type="submit" className="btn btn-primary btn-sm" disabled={!picked}>
                Snooze until date
              </button>
            </form>
          </div>
        )}
      </div>
    </div>
  );
}
