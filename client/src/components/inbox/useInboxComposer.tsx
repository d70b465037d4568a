import { fillCannedReply } from '@parley/shared';
import { type KeyboardEvent, type ReactNode, type RefObject, useEffect, useMemo, useState } from 'react';
import { serverError } from '../../lib/api';
import { visitorName as displayName } from '../../lib/format';
import { useAuth } from '../../stores/auth';
import { useInbox } from '../../stores/inbox';
import { matchCanned, slashQuery } from './cannedPicker';
import './inbox.css';

interface Options {
  text: string;
  setText: (text: string) => void;
  textarea: RefObject<HTMLTextAreaElement | null>;
  visitorId: string | undefined;
  visitorName: string | undefined;
}

/**
 * What the inbox tools add to the message center's composer: the Reply / Note switch (a note
 * goes to POST .../notes, never to the visitor) and the `/` list of canned replies (arrow keys,
 * Enter or Tab inserts with the names filled in, Escape closes). The composer hands its key
 * presses here first; `onKeyDown` returns true when it used one.
 */
export function useInboxComposer({ text, setText, textarea, visitorId, visitorName }: Options) {
  const [mode, setMode] = useState<'reply' | 'note'>('reply');
  const [active, setActive] = useState(0);
  const [closedFor, setClosedFor] = useState<string | null>(null);
  const [noteError, setNoteError] = useState('');
  const canned = useInbox((s) => s.cannedReplies);
  const agentName = useAuth((s) => s.user?.name ?? '');

  useEffect(() => {
    void useInbox.getState().load();
  }, []);

  const slash = slashQuery(text);
  const query = slash ? slash.query : null;
  const matches = useMemo(() => (query === null ? [] : matchCanned(canned, query)), [canned, query]);
  const open = slash !== null && closedFor !== text && matches.length > 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new query starts at the first match
  useEffect(() => setActive(0), [query]);

  const insert = (index: number) => {
    const reply = matches[index];
    if (!reply || !slash) return;
    const filled = fillCannedReply(reply.text, { visitor: displayName(visitorName), agent: agentName });
    setText(text.slice(0, slash.start) + filled);
    textarea.current?.focus();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((i) => (i + step + matches.length) % matches.length);
      return true;
    }
    if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') {
      e.preventDefault();
      insert(active);
      return true;
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      setClosedFor(text);
      return true;
    }
    return false;
  };

  const sendNote = async (note: string): Promise<boolean> => {
    if (!visitorId) return false;
    setNoteError('');
    try {
      await useInbox.getState().sendNote(visitorId, note);
      return true;
    } catch (e) {
      setNoteError(serverError(e, 'Failed to save the note. Please try again.'));
      return false;
    }
  };

  const listId = 'canned-reply-list';
  const picker: ReactNode = open ? (
    <div className="canned-picker">
      <div className="canned-picker-head">Canned replies</div>
      <div id={listId} role="listbox" aria-label="Canned replies" className="canned-list">
        {matches.map((r, i) => (
          <div
            key={r.id}
            id={`canned-reply-${r.id}`}
            role="option"
            tabIndex={-1}
            aria-selected={i === active}
            className={`canned-option${i === active ? ' active' : ''}`}
            onMouseDown={(e) => {
              e.preventDefault(); // keep the focus in the text box
              insert(i);
            }}
          >
            <span className="canned-shortcut">/{r.shortcut}</span>
            <span className="canned-title">{r.title}</span>
            <span className="canned-text">{r.text}</span>
          </div>
        ))}
      </div>
    </div>
  ) : null;

  const toggle: ReactNode = (
    <fieldset className="composer-mode">
      <legend className="sr-only">Composer mode</legend>
      <button type="button" className={mode === 'reply' ? 'on' : undefined} aria-pressed={mode === 'reply'} onClick={() => setMode('reply')}>
        Reply
      </button>
      <button type="button" className={mode === 'note' ? 'on note' : undefined} aria-pressed={mode === 'note'} onClick={() => setMode('note')}>
        Private note
      </button>
    </fieldset>
  );

  return {
    mode,
    isNote: mode === 'note',
    toggle,
    picker,
    noteError,
    clearNoteError: () => setNoteError(''),
    sendNote,
    onKeyDown,
    textareaProps: {
      placeholder: mode === 'note' ? 'Write a private note (only your team sees it)...' : 'Type your message...',
      'aria-label': mode === 'note' ? 'Private note' : 'Message',
      'aria-controls': open ? listId : undefined,
      'aria-activedescendant': open && matches[active] ? `canned-reply-${matches[active].id}` : undefined,
      'aria-autocomplete': 'list' as const,
    },
  };
}
