import type { ConversationDto } from '@parley/shared';
import { useEffect, useRef, useState } from 'react';
import { serverError } from '../../lib/api';
import { useInbox } from '../../stores/inbox';
import { LabelChips } from './LabelChips';
import './inbox.css';

/**
 * The conversation header's labels: its chips and a "Labels" menu of the account's labels with
 * a checkbox each (anyone who may see the conversation may change them; PUT .../labels).
 */
export function ConversationLabels({ conversation }: { conversation: ConversationDto | null }) {
  const all = useInbox((s) => s.labels);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState('');
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    void useInbox.getState().load();
  }, []);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [open]);

  if (!conversation) return null;
  const current = conversation.labels ?? [];
  const toggle = async (id: number, on: boolean) => {
    setError('');
    const ids = on ? [...current.map((l) => l.id), id] : current.map((l) => l.id).filter((x) => x !== id);
    try {
      await useInbox.getState().setConversationLabels(conversation.visitor_id, ids);
    } catch (e) {
      setError(serverError(e, 'Failed to change the labels. Please try again.'));
    }
  };

  return (
    <div className="conv-labels" ref={box}>
      <LabelChips labels={current} />
      <button type="button" className="btn btn-ghost btn-sm" aria-expanded={open} aria-haspopup="true" onClick={() => setOpen((v) => !v)} onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
        Labels
      </button>
      {open && (
        <fieldset className="label-menu" onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
          <legend className="sr-only">Labels of this conversation</legend>
          {all.length === 0 ? (
            <p className="muted">No labels yet. The owner or an Admin creates them in Settings.</p>
          ) : (
            all.map((l) => {
              const on = current.some((c) => c.id === l.id);
              return (
                <label key={l.id} className="label-option">
                  <input type="checkbox" checked={on} onChange={(e) => void toggle(l.id, e.target.checked)} />
                  <span className="label-dot" style={{ background: l.color }} aria-hidden="true" />
                  {l.name}
                </label>
              );
            })
          )}
          {error && (
            <p className="field-error" role="alert">
              {error}
            </p>
          )}
        </fieldset>
      )}
    </div>
  );
}
