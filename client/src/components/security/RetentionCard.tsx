import { MAX_RETENTION_MONTHS, RETENTION_INVALID } from '@parley/shared';
import { type FormEvent, useEffect, useState } from 'react';
import { api, serverError } from '../../lib/api';
import { Banner, Button, TextField } from '../ui';

/** Owner/Admin: delete messages (and their files) older than N months; empty keeps them. */
export function RetentionCard() {
  const [months, setMonths] = useState('');
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api
      .getData<{ retention_months: number | null }>('/api/vms/retention')
      .then((d) => setMonths(d.retention_months === null ? '' : String(d.retention_months)))
      .catch(() => undefined);
  }, []);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const value = months.trim() === '' ? null : Number(months);
    if (value !== null && !(Number.isInteger(value) && value >= 1 && value <= MAX_RETENTION_MONTHS)) {
      setError(RETENTION_INVALID);
      return;
    }
    setBusy(true);
    setError('');
    try {
      await api.put('/api/vms/retention', { retention_months: value });
      setNotice(value === null ? 'Messages are kept.' : `Messages older than ${value} months are deleted, with their files.`);
    } catch (err) {
      setError(serverError(err, 'Could not save the retention'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="retention-title">
      <div className="card-header">
        <div>
          <h2 id="retention-title" className="card-title">Data retention</h2>
          <p className="card-sub">Delete old messages and files automatically</p>
        </div>
      </div>
      <form className="card-body" onSubmit={save} noValidate aria-label="Data retention">
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        {notice && <Banner kind="success" onDismiss={() => setNotice('')}>{notice}</Banner>}
        <TextField label="Keep messages for (months)" name="retention_months" inputMode="numeric" hint="Empty: keep them" value={months} onChange={(e) => setMonths(e.target.value)} />
        <div className="form-actions">
          <Button type="submit" busy={busy}>Save retention</Button>
        </div>
      </form>
    </section>
  );
}
