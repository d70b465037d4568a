import { LABEL_COLORS, type LabelDto, labelSchema } from '@parley/shared';
import { type FormEvent, useEffect, useState } from 'react';
import { serverError } from '../../lib/api';
import { useFormFields, useSubmit } from '../../lib/validate';
import { useCan } from '../../stores/auth';
import { useInbox } from '../../stores/inbox';
import { Banner, Button, TextField } from '../ui';
import { LabelChips } from './LabelChips';
import './inbox.css';

const EMPTY = { name: '', color: LABEL_COLORS[5] as string };

/** Settings card "Labels": everyone sees them; owner and Admin ('inbox.manage') add, change and delete. */
export function LabelsManager() {
  const canManage = useCan('inbox.manage');
  const labels = useInbox((s) => s.labels);
  const { values, setValues, errors, setErrors, set } = useFormFields(EMPTY);
  const [editing, setEditing] = useState<number | undefined>(undefined);
  const { busy, error, setError, submit } = useSubmit(setErrors);

  useEffect(() => {
    void useInbox.getState().load();
  }, []);

  const reset = () => {
    setEditing(undefined);
    setValues(EMPTY);
    setErrors({});
  };
  const edit = (l: LabelDto) => {
    setEditing(l.id);
    setValues({ name: l.name, color: l.color });
    setErrors({});
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (await submit(labelSchema, values, (data) => useInbox.getState().saveLabel(data, editing), 'Failed to save the label')) reset();
  };

  const remove = async (l: LabelDto) => {
    if (!window.confirm(`Delete the label "${l.name}"? Conversations lose it.`)) return;
    try {
      await useInbox.getState().deleteLabel(l.id);
      if (editing === l.id) reset();
    } catch (err) {
      setError(serverError(err, 'Failed to delete the label'));
    }
  };

  return (
    <section className="card" aria-labelledby="labels-title">
      <div className="card-header">
        <div>
          <h2 id="labels-title" className="card-title">Labels</h2>
          <p className="card-sub">Tag conversations from the chat header; filter the message center by label.</p>
        </div>
      </div>
      <div className="card-body">
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        {labels.length === 0 ? (
          <p className="muted">No labels yet.</p>
        ) : (
          <table className="inbox-table" aria-label="Labels">
            <tbody>
              {labels.map((l) => (
                <tr key={l.id}>
                  <td>
                    <LabelChips labels={[l]} />
                  </td>
                  {canManage && (
                    <td style={{ whiteSpace: 'nowrap', textAlign: 'right' }}>
                      <Button variant="ghost" size="sm" onClick={() => edit(l)} aria-label={`Edit label ${l.name}`}>
                        Edit
                      </Button>
                      <Button variant="ghost" size="sm" onClick={() => void remove(l)} aria-label={`Delete label ${l.name}`}>
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
          <form onSubmit={onSubmit} noValidate aria-label={editing === undefined ? 'New label' : 'Edit label'} style={{ marginTop: 16 }}>
            <TextField label="Label name" name="label_name" value={values.name} error={errors.name} onChange={(e) => set('name', e.target.value)} />
            <fieldset className="field swatch-set">
              <legend className="field-label">Colour</legend>
              <div className="swatches">
                {LABEL_COLORS.map((c) => (
                  <button
                    key={c}
                    type="button"
                    className="swatch"
                    aria-pressed={values.color === c}
                    aria-label={`Colour ${c}`}
                    style={{ background: c }}
                    onClick={() => set('color', c)}
                  />
                ))}
              </div>
              {errors.color && (
                <div className="field-error" role="alert">
                  {errors.color}
                </div>
              )}
            </fieldset>
            <div className="form-actions">
              {editing !== undefined && (
                <Button variant="secondary" onClick={reset}>
                  Cancel
                </Button>
              )}
              <Button type="submit" busy={busy}>
                {editing === undefined ? 'Add label' : 'Save label'}
              </Button>
            </div>
          </form>
        )}
      </div>
    </section>
  );
}
