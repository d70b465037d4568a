import './integrations.css';
import { useCallback, useEffect, useState } from 'react';
import { API_KEY_SCOPE_LABELS, API_KEY_SCOPES, type ApiKeyDto, type ApiKeyScope, apiKeySchema } from '@parley/shared';
import { api, serverError } from '../../lib/api';
import { type FormErrors, useSubmit } from '../../lib/validate';
import { Banner, Button, TextField } from '../ui';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'Never');

/** Owner/Admin: the account's API keys; a new key is shown once, right after it is created. */
export function ApiKeysCard() {
  const [keys, setKeys] = useState<ApiKeyDto[] | null>(null);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiKeyScope[]>(['conversations:read']);
  const [fieldErrors, setFieldErrors] = useState<FormErrors>({});
  const { busy, error, setError, submit } = useSubmit(setFieldErrors);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);

  const load = useCallback(() => {
    api
      .getData<ApiKeyDto[]>('/api/vms/api-keys')
      .then(setKeys)
      .catch((e: unknown) => setError(serverError(e, 'Could not load your API keys')));
  }, [setError]);
  useEffect(load, [load]);

  const create = async (e: React.FormEvent) => {
    e.preventDefault();
    const sent = await submit(
      apiKeySchema,
      { name, scopes },
      async (input) => {
        const data = await api.postData<ApiKeyDto & { key: string }>('/api/vms/api-keys', input);
        setCreated({ name: data.name, key: data.key });
      },
      'Could not create the key',
    );
    if (!sent) return;
    setName('');
    load();
  };

  const revoke = async (k: ApiKeyDto) => {
    if (!window.confirm(`Revoke the key “${k.name}”? Anything using it stops working at once.`)) return;
    setError('');
    try {
      await api.delete(`/api/vms/api-keys/${k.id}`);
      load();
    } catch (err) {
      setError(serverError(err, 'Could not revoke the key'));
    }
  };

  const toggle = (s: ApiKeyScope) => setScopes((cur) => (cur.includes(s) ? cur.filter((x) => x !== s) : [...cur, s]));

  return (
    <section className="card" aria-labelledby="api-keys-title">
      <div className="card-header">
        <div>
          <h2 id="api-keys-title" className="card-title">API keys</h2>
          <p className="card-sub">
            Send <code>Authorization: Bearer &lt;key&gt;</code>. A key acts as you, limited to its scopes; see Documentation &gt; API.
          </p>
        </div>
      </div>
      <div className="card-body">
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        {created && (
          <div className="banner banner-success" role="status">
            <p>
              Your new key “{created.name}”. Copy it now: it will not be shown again.
            </p>
            <input className="input secret-once" readOnly aria-label="New API key" value={created.key} onFocus={(e) => e.currentTarget.select()} />{' '}
            <Button variant="secondary" size="sm" onClick={() => void navigator.clipboard?.writeText(created.key)}>
              Copy
            </Button>{' '}
            <Button variant="ghost" size="sm" onClick={() => setCreated(null)}>
              Done
            </Button>
          </div>
        )}
        <form onSubmit={(e) => void create(e)} noValidate aria-label="Create an API key">
          <TextField label="Key name" value={name} onChange={(e) => setName(e.target.value)} error={fieldErrors.name} placeholder="CRM sync" maxLength={80} />
          <fieldset className="field">
            <legend className="field-label">Scopes</legend>
            {API_KEY_SCOPES.map((s) => (
              <label key={s} className="checkbox">
                <input type="checkbox" checked={scopes.includes(s)} onChange={() => toggle(s)} /> {API_KEY_SCOPE_LABELS[s]}
              </label>
            ))}
            {fieldErrors.scopes && <p className="field-error" role="alert">{fieldErrors.scopes}</p>}
          </fieldset>
          <Button type="submit" busy={busy}>
            Create key
          </Button>
        </form>
        <table className="table" aria-label="API keys">
          <thead>
            <tr>
              <th>Name</th>
              <th>Key</th>
              <th>Scopes</th>
              <th>Created by</th>
              <th>Last used</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(keys ?? []).map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>{k.scopes.map((s) => API_KEY_SCOPE_LABELS[s]).join(', ')}</td>
                <td>{k.user.name}</td>
                <td>{when(k.last_used_at)}</td>
                <td>
                  <Button variant="danger" size="sm" onClick={() => void revoke(k)} aria-label={`Revoke ${k.name}`}>
                    Revoke
                  </Button>
                </td>
              </tr>
            ))}
            {keys?.length === 0 && (
              <tr>
                <td colSpan={6}>No API keys yet.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
