import type { VisitorDto } from '@parley/shared';
import { type FormEvent, useState } from 'react';
import { api, serverError } from '../../lib/api';
import { Banner, Button, TextField } from '../ui';

/**
 * Owner/Admin (issue 14, GDPR): find a visitor by name or email, download their data as JSON,
 * or erase them (rows, files, learned knowledge); both land in the audit log.
 */
export function VisitorDataCard() {
  const [q, setQ] = useState('');
  const [rows, setRows] = useState<VisitorDto[] | null>(null);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');

  const search = async (e: FormEvent) => {
    e.preventDefault();
    setError('');
    try {
      const res = await api.get<{ data: VisitorDto[] }>('/api/vms/visitor', { query: { q: q.trim() || undefined, limit: 20 } });
      setRows(res.data);
    } catch (err) {
      setError(serverError(err, 'Could not search visitors'));
    }
  };
  const download = async (v: VisitorDto) => {
    setError('');
    try {
      const doc = await api.get<unknown>(`/api/vms/visitor/${v.id}/export`);
      const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `visitor-${v.id}.json`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (err) {
      setError(serverError(err, 'Could not export the visitor'));
    }
  };
  const erase = async (v: VisitorDto) => {
    if (!window.confirm(`Erase ${v.name || v.email || 'this visitor'} and all their conversations, messages and files? This cannot be undone.`)) return;
    setError('');
    try {
      await api.delete(`/api/vms/visitor/${v.id}`);
      setRows((old) => (old ?? []).filter((r) => r.id !== v.id));
      setNotice(`${v.name || v.email || 'The visitor'} was erased.`);
    } catch (err) {
      setError(serverError(err, 'Could not erase the visitor'));
    }
  };

  return (
    <section className="card" aria-labelledby="visitor-data-title">
      <div className="card-header">
        <div>
          <h2 id="visitor-data-title" className="card-title">A visitor's data</h2>
          <p className="card-sub">Export or erase everything about one visitor</p>
        </div>
      </div>
      <div className="card-body">
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        {notice && <Banner kind="success" onDismiss={() => setNotice('')}>{notice}</Banner>}
        <form onSubmit={search} noValidate aria-label="Find a visitor">
          <TextField label="Name or email" name="q" value={q} onChange={(e) => setQ(e.target.value)} />
          <div className="form-actions">
            <Button type="submit" variant="secondary">Find</Button>
          </div>
        </form>
        {rows && rows.length === 0 && <p className="field-hint">No visitor found.</p>}
        <ul className="session-list" aria-label="Visitors found">
          {(rows ?? []).map((v) => (
            <li key={v.id}>
              <div>
                <strong>{v.name || 'Anonymous visitor'}</strong>
                <p className="field-hint">{v.email || v.id}</p>
              </div>
              <div className="form-actions">
                <Button size="sm" variant="secondary" onClick={() => void download(v)}>Export</Button>
                <Button size="sm" variant="danger" onClick={() => void erase(v)}>Erase</Button>
              </div>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
