import { useEffect, useState } from 'react';
import type { LabelDto } from '@parley/shared';
import { shortDateTime, visitorName } from '../../lib/format';
import { useVisitorContext } from '../../stores/conversationsContext';
import { useInbox } from '../../stores/inbox';
import { LabelChips } from '../inbox/LabelChips';
import { errorText } from '../../lib/api';
import { localTime } from './visitorPanelLogic';

/**
 * The visitor beside the chat (issue 16, "Visitor context beside the chat"): who they are (name
 * and email editable by the team), where they are (live current page, this visit's pages), their
 * past conversations, labels and the team's notes.
 */
export function VisitorPanel({ visitorId, labels, onClose }: { visitorId: string; labels: LabelDto[] | undefined; onClose: () => void }) {
  const ctx = useVisitorContext();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [note, setNote] = useState('');
  const [noteError, setNoteError] = useState('');
  const [noteBusy, setNoteBusy] = useState(false);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => useVisitorContext.getState().connect(), []);
  useEffect(() => {
    setEditing(false);
    void useVisitorContext.getState().load(visitorId);
  }, [visitorId]);
  // The local time moves on.
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);

  const data = ctx.visitorId === visitorId ? ctx.data : null;
  const v = data?.visitor;

  const startEdit = () => {
    if (!v) return;
    setName(v.name);
    setEmail(v.email);
    ctx.clearSaveError();
    setEditing(true);
  };
  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!v) return;
    const changes: { name?: string; email?: string } = {};
    if (name !== v.name) changes.name = name;
    if (email !== v.email) changes.email = email;
    if (Object.keys(changes).length === 0 || (await ctx.saveVisitor(changes))) setEditing(false);
  };
  const addNote = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!note.trim()) return;
    setNoteBusy(true);
    setNoteError('');
    try {
      useVisitorContext.getState().addNote(await useInbox.getState().sendNote(visitorId, note.trim()));
      setNote('');
    } catch (err) {
      setNoteError(errorText(err, 'Failed to save the note. Please try again.'));
    } finally {
      setNoteBusy(false);
    }
  };

  const time = data ? localTime(data.time_zone, now) : null;
  return (
    <aside className="mc-context" aria-label="Visitor details">
      <div className="ctx-head">
        <h2>Visitor</h2>
        <button type="button" className="icon-btn" aria-label="Close visitor details" onClick={onClose}>
          ×
        </button>
      </div>
      {ctx.loading && !data ? <p className="ctx-muted">Loading...</p> : null}
      {ctx.error && !data ? <p className="ctx-muted">{ctx.error}</p> : null}
      {v && data ? (
        <div className="ctx-body">
          {editing ? (
            <form className="ctx-edit" onSubmit={save} noValidate>
              <label>
                Name
                <input value={name} onChange={(e) => setName(e.target.value)} maxLength={255} aria-invalid={Boolean(ctx.saveErrors.name)} />
              </label>
              {ctx.saveErrors.name ? <span className="field-error">{ctx.saveErrors.name[0]}</span> : null}
              <label>
                Email
                <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} aria-invalid={Boolean(ctx.saveErrors.email)} />
              </label>
              {ctx.saveErrors.email ? <span className="field-error">{ctx.saveErrors.email[0]}</span> : null}
              {ctx.saveError && !ctx.saveErrors.name && !ctx.saveErrors.email ? (
                <span className="field-error" role="alert">
                  {ctx.saveError}
                </span>
              ) : null}
              <div className="ctx-edit-actions">
                <button type="submit" className="btn btn-primary btn-sm" disabled={ctx.saving}>
                  {ctx.saving ? 'Saving...' : 'Save'}
                </button>
                <button type="button" className="btn btn-secondary btn-sm" onClick={() => setEditing(false)}>
                  Cancel
                </button>
              </div>
            </form>
          ) : (
            <div className="ctx-who">
              <div className="ctx-name">{visitorName(v.name)}</div>
              <div className="ctx-email">{v.email || <span className="ctx-muted">No email</span>}</div>
              <button type="button" className="btn btn-secondary btn-sm" onClick={startEdit}>
                Edit
              </button>
            </div>
          )}

          <dl className="ctx-facts">
            <Fact label="Country" value={v.country} />
            <Fact label="Local time" value={time ?? ''} />
            <Fact label="Browser" value={v.browser} />
            <Fact label="OS" value={v.os} />
            <Fact label="Device" value={v.device} />
            <dt>Current page</dt>
            <dd data-testid="ctx-current-page">{v.current_page ? <PageLink url={v.current_page} /> : 'Unknown'}</dd>
            <dt>Referrer</dt>
            <dd>{v.referrer ? <PageLink url={v.referrer} /> : 'Direct'}</dd>
            <Fact label="First seen" value={shortDateTime(v.created_at)} />
            <Fact label="Visits" value={String(data.visit_count)} />
          </dl>

          <section>
            <h3>Labels</h3>
            {labels?.length ? <LabelChips labels={labels} /> : <p className="ctx-muted">No labels</p>}
          </section>

          <section>
            <h3>Pages this visit ({data.pages.length})</h3>
            {data.pages.length ? (
              <ol className="ctx-list" data-testid="ctx-pages">
                {data.pages.map((p) => (
                  <li key={`${p.at}|${p.url}`}>
                    <PageLink url={p.url} /> <span className="ctx-muted">{shortDateTime(p.at)}</span>
                  </li>
                ))}
              </ol>
            ) : (
              <p className="ctx-muted">No pages recorded</p>
            )}
          </section>

          <section>
            <h3>Past conversations ({data.past_conversations.length})</h3>
            {data.past_conversations.length ? (
              <ul className="ctx-list">
                {data.past_conversations.map((s) => (
                  <li key={s.resolved_at}>
                    <div>
                      {shortDateTime(s.opened_at)} - {shortDateTime(s.resolved_at)}
                    </div>
                    <div className="ctx-muted">
                      {s.message_count} {s.message_count === 1 ? 'message' : 'messages'}
                      {s.first_message ? `: ${s.first_message}` : ''}
                    </div>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="ctx-muted">None before this one</p>
            )}
          </section>

          <section>
            <h3>Notes</h3>
            <form className="ctx-note" onSubmit={addNote}>
              <textarea aria-label="Note about the visitor" placeholder="Add a note (only the team sees it)" value={note} onChange={(e) => setNote(e.target.value)} rows={2} />
              {noteError ? <span className="field-error">{noteError}</span> : null}
              <button type="submit" className="btn btn-secondary btn-sm" disabled={noteBusy || !note.trim()}>
                Add note
              </button>
            </form>
            {data.notes.length ? (
              <ul className="ctx-list ctx-notes">
                {data.notes.map((n) => (
                  <li key={n.id}>
                    <div>{n.message}</div>
                    <div className="ctx-muted">
                      {n.author_name ?? 'Team'} · {shortDateTime(n.created_at)}
                    </div>
                  </li>
                ))}
              </ul>
            ) : null}
          </section>
        </div>
      ) : null}
    </aside>
  );
}

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{value || 'Unknown'}</dd>
    </>
  );
}

/** A visitor-reported URL: shown as text, linked only when it is http(s). */
function PageLink({ url }: { url: string }) {
  if (!/^https?:\/\//i.test(url)) return <span className="ctx-url">{url}</span>;
  return (
    <a className="ctx-url" href={url} target="_blank" rel="noopener noreferrer nofollow" title={url}>
      {url}
    </a>
  );
}
