import { type CannedReplyDto, cannedReplySchema } from '@parley/shared';
import { type FormEvent, useEffect, useState } from 'react';
import { serverError } from '../../lib/api';
import { useFormFields, useSubmit } from '../../lib/validate';
import { useCan } from '../../stores/auth';
import { useInbox } from '../../stores/inbox';
import { Banner, Button, TextAreaField, TextField } from '../ui';
import './inbox.css';

const EMPTY = { title: '', shortcut: '', text: '' };

/**
 * Settings card "Canned replies": everyone sees the list (the composer's `/` list); owner and
 * Admin ('inbox.manage') add, edit and delete. `{{visitor.name}}` and `{{agent.name}}` are
 * filled in when a reply is inserted.
 */
export function CannedRepliesManager() {
  const canManage = useCan('inbox.manage');
  const replies = useInbox((s) => s.cannedReplies);
  const loadError = useInbox((s) => s.loadError);
  const { values, setValues, errors, setErrors, set } = useFormFields(EMPTY);
  const [editing, setEditing] = useState<number | undefined>(undefined);
  const { busy, error, setError, submit } = useSubmit(setErrors);
  const [success, setSuccess] = useState('');

  useEffect(() => {
    void useInbox.getState().load();
  }, []);

  const edit = (r: CannedReplyDto) => {
    setEditing(r.id);
    setValues({ title: r.title, shortcut: r.shortcut, text: r.text });
    setErrors({});
  };
  const reset = () => {
    setEditing(undefined);
    setValues(EMPTY);
    setErrors({});
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setSuccess('');
    if (!(await submit(cannedReplySchema, values, (data) => useInbox.getState().saveCannedReply(data, editing), 'Failed to save the canned reply'))) return;
    setSuccess(editing === undefined ? 'Canned reply added' : 'Canned reply updated');
    reset();
  };

  const remove = async (r: CannedReplyDto) => {
    if (!window.confirm(`Delete the canned reply "/${r.shortcut}"?`)) return;
    setError('');
    try {
      await useInbox.getState().deleteCannedReply(r.id);
      if (editing === r.id) reset();
    } catch (err) {
      setError(serverError(err, 'Failed to delete the canned reply'));
    }
  };

  return (
    <section className="card" aria-labelledby="canned-title">
      <div className="card-header">
        <div>
          <h2 id="canned-title" className="card-title">Canned replies</h2>
          <p className="card-sub">Type / in the message box to insert one. {'{{visitor.name}}'} and {'{{agent.name}}'} are filled in.</p>
        </div>
      </div>
      <div className="card-body">
        {loadError && <Banner kind="error">{loadError}</Banner>}
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        {success && <Banner kind="success" onDismiss={() => setSuccess('')}>{success}</Banner>}
        {replies.length === 0 ? (
          <p className="muted">No canned replies yet.</p>
        ) : (
          <table className="inbox-table" aria-label="Canned replies">
            <tbody>
              {replies.map((r) => (
                <tr key={r.id}>
                  <td>
                    <code>/{r.shortcut}</code>
                  </td>
                  <td>
                    <strong>{r.title}</strong>
                    <div className="muted" style={{ fontSize: 13, whiteSpace: 'pre-wrap' }}>
                      {r.text}
                    </div>
                  </td>
                  {canManage && (
                    <td style={{ whiteSpace: 'nowrap' }}>
                      <Button variant="ghost" size="sm" onClick={() => edit(r)} aria-label={`Edit /${r.shortcut}`}>
                        Edit
                      </Button>
                      <Button variant="ghost" size="sm" onClick={() => void remove(r)} aria-label={`Delete /${r.shortcut}`}>
                        Delete
                      </Button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {canManage && (
          <form onSubmit={onSubmit} noValidate aria-label={editing === undefined ? 'New canned reply' : 'Edit canned reply'} style={{ marginTop: 16 }}>
            <TextField label="Title" name="canned_title" value={values.title} error={errors.title} onChange={(e) => set('title', e.target.value)} />
            <TextField label="Shortcut" name="canned_shortcut" hint="Letters, digits, - and _; typed after /" value={values.shortcut} error={errors.shortcut} onChange={(e) => set('shortcut', e.target.value)} />
            <TextAreaField label="Text" name="canned_text" rows={3} value={values.text} error={errors.text} onChange={(e) => set('text', e.target.value)} />
            <div className="form-actions">
              {editing !== undefined && (
                <Button variant="secondary" onClick={reset}>
                  Cancel
                </Button>
              )}
              <Button type="submit" busy={busy}>
                {editing === undefined ? 'Add canned reply' : 'Save canned reply'}
              </Button>
            </div>
          </form>
        )}
      </div>
    </section>
  );
}
