import { type TriggerDto, triggerSchema } from '@parley/shared';
import { type FormEvent, useEffect, useState } from 'react';
import { serverError } from '../../lib/api';
import { useFormFields, useSubmit } from '../../lib/validate';
import { useCan } from '../../stores/auth';
import { useProactive } from '../../stores/proactive';
import { Banner, Button, TextAreaField, TextField, Toggle } from '../ui';
import '../inbox/inbox.css';

const EMPTY = { name: '', url_pattern: '', seconds_on_page: '0', nth_page: '0', message: '', sender_name: '', sender_avatar: '' };

/** How a trigger reads in the list: its conditions in words. */
function conditions(t: TriggerDto): string {
  const parts = [t.url_pattern ? `pages ${t.url_pattern}` : 'any page'];
  if (t.seconds_on_page) parts.push(`after ${t.seconds_on_page} s`);
  if (t.nth_page) parts.push(`from page ${t.nth_page} of a visit`);
  if (t.returning_only) parts.push('returning visitors');
  return parts.join(', ');
}

/**
 * Settings card "Proactive messages" (issue 13): owner and Admin ('inbox.manage') define when the
 * widget greets a visitor first (page pattern, seconds on the page, Nth page of the visit,
 * returning visitor), with a sender and a bubble or the opened panel; a preview shows the bubble.
 * Each fires at most once per visitor per day (the server records it). Agents see the list.
 */
export function ProactiveMessages() {
  const canManage = useCan('inbox.manage');
  const triggers = useProactive((s) => s.triggers);
  const { values, setValues, errors, setErrors, set } = useFormFields(EMPTY);
  const [flags, setFlags] = useState({ returning_only: false, open_panel: false, enabled: true });
  const [editing, setEditing] = useState<number | undefined>(undefined);
  const { busy, error, setError, submit } = useSubmit(setErrors);

  useEffect(() => {
    useProactive
      .getState()
      .load()
      .catch((e) => setError(serverError(e, 'Failed to load proactive messages')));
  }, [setError]);

  const reset = () => {
    setEditing(undefined);
    setValues(EMPTY);
    setFlags({ returning_only: false, open_panel: false, enabled: true });
    setErrors({});
  };
  const edit = (t: TriggerDto) => {
    setEditing(t.id);
    setValues({ name: t.name, url_pattern: t.url_pattern, seconds_on_page: String(t.seconds_on_page), nth_page: String(t.nth_page), message: t.message, sender_name: t.sender_name, sender_avatar: t.sender_avatar });
    setFlags({ returning_only: t.returning_only, open_panel: t.open_panel, enabled: t.enabled });
    setErrors({});
  };
  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const input = { ...values, ...flags, seconds_on_page: Number(values.seconds_on_page || 0), nth_page: Number(values.nth_page || 0) };
    if (await submit(triggerSchema, input, (data) => useProactive.getState().save(data, editing), 'Failed to save the proactive message')) reset();
  };
  const remove = async (t: TriggerDto) => {
    if (!window.confirm(`Delete the proactive message "${t.name}"?`)) return;
    try {
      await useProactive.getState().remove(t.id);
      if (editing === t.id) reset();
    } catch (err) {
      setError(serverError(err, 'Failed to delete the proactive message'));
    }
  };

  return (
    <section className="card" aria-labelledby="proactive-title">
      <div className="card-header">
        <div>
          <h2 id="proactive-title" className="card-title">Proactive messages</h2>
          <p className="card-sub">Greet visitors first, at most once a day per visitor</p>
        </div>
      </div>
      <div className="card-body">
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        {triggers.length === 0 ? (
          <p className="field-hint">No proactive messages yet.</p>
        ) : (
          <table className="inbox-table" aria-label="Proactive messages">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">When</th>
                <th scope="col">Status</th>
                {canManage && <th scope="col"><span className="sr-only">Actions</span></th>}
              </tr>
            </thead>
            <tbody>
              {triggers.map((t) => (
                <tr key={t.id}>
                  <td>{t.name}</td>
                  <td>{conditions(t)}</td>
                  <td>{t.enabled ? (t.open_panel ? 'On, opens the chat' : 'On, bubble') : 'Off'}</td>
                  {canManage && (
                    <td>
                      <Button variant="secondary" size="sm" onClick={() => edit(t)} aria-label={`Edit ${t.name}`}>Edit</Button>{' '}
                      <Button variant="secondary" size="sm" onClick={() => void remove(t)} aria-label={`Delete ${t.name}`}>Delete</Button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {canManage ? (
          <form onSubmit={onSubmit} noValidate aria-label={editing === undefined ? 'New proactive message' : 'Edit proactive message'}>
            <TextField label="Name" value={values.name} error={errors.name} onChange={(e) => set('name', e.target.value)} maxLength={80} />
            <TextAreaField label="Message" value={values.message} error={errors.message} onChange={(e) => set('message', e.target.value)} rows={2} maxLength={1000} />
            <TextField label="Page address pattern" hint="Empty: every page. * matches anything, e.g. /pricing*" value={values.url_pattern} error={errors.url_pattern} onChange={(e) => set('url_pattern', e.target.value)} />
            <TextField label="Seconds on the page" type="number" min={0} max={3600} value={values.seconds_on_page} error={errors.seconds_on_page} onChange={(e) => set('seconds_on_page', e.target.value)} />
            <TextField label="From page N of a visit" hint="0: any page" type="number" min={0} max={100} value={values.nth_page} error={errors.nth_page} onChange={(e) => set('nth_page', e.target.value)} />
            <TextField label="Sender name" hint="Empty: the widget's name" value={values.sender_name} error={errors.sender_name} onChange={(e) => set('sender_name', e.target.value)} maxLength={80} />
            <TextField label="Sender avatar address" hint="Empty: the widget's avatar; an https:// image address" value={values.sender_avatar} error={errors.sender_avatar} onChange={(e) => set('sender_avatar', e.target.value)} />
            <Toggle label="Returning visitors only" checked={flags.returning_only} onChange={(v) => setFlags({ ...flags, returning_only: v })} />
            <Toggle label="Open the chat panel" description="Otherwise only a bubble above the launcher" checked={flags.open_panel} onChange={(v) => setFlags({ ...flags, open_panel: v })} />
            <Toggle label="On" checked={flags.enabled} onChange={(v) => setFlags({ ...flags, enabled: v })} />
            <fieldset className="proactive-preview" style={{ border: 0, padding: 0, margin: '12px 0' }}>
              <legend className="field-hint">Preview</legend>
              <div style={{ display: 'inline-flex', gap: 8, background: '#fff', borderRadius: 14, padding: 12, boxShadow: '0 8px 32px rgba(0,0,0,.15)', maxWidth: 300 }}>
                {values.sender_avatar.startsWith('https://') && <img src={values.sender_avatar} alt="" width={32} height={32} style={{ borderRadius: '50%' }} />}
                <div>
                  <b style={{ display: 'block' }}>{values.sender_name || 'Your widget name'}</b>
                  {values.message || 'Your message'}
                </div>
              </div>
            </fieldset>
            <div className="form-actions">
              {editing !== undefined && <Button variant="secondary" onClick={reset}>Cancel</Button>}
              <Button type="submit" busy={busy}>{editing === undefined ? 'Add proactive message' : 'Save proactive message'}</Button>
            </div>
          </form>
        ) : (
          <p className="field-hint">Only the owner or an Admin can change proactive messages.</p>
        )}
      </div>
    </section>
  );
}
