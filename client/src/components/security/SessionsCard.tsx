import { useCallback, useEffect, useState } from 'react';
import { api, serverError } from '../../lib/api';
import { Banner, Button } from '../ui';

interface SessionRow {
  id: number;
  device: string;
  ip: string;
  created_at: string;
  last_used_at: string;
  current: boolean;
}

const when = (iso: string) => new Date(iso).toLocaleString();

/** Settings > Security: this user's active sessions; any of them can be ended (its live tabs close). */
export function SessionsCard() {
  const [rows, setRows] = useState<SessionRow[] | null>(null);
  const [error, setError] = useState('');
  const load = useCallback(() => {
    api
      .getData<SessionRow[]>('/api/vms/sessions')
      .then(setRows)
      .catch((e: unknown) => setError(serverError(e, 'Could not load your sessions')));
  }, []);
  useEffect(load, [load]);

  const end = async (id: number) => {
    setError('');
    try {
      await api.delete(`/api/vms/sessions/${id}`);
      load();
    } catch (e) {
      setError(serverError(e, 'Could not end the session'));
    }
  };

  return (
    <section className="card" aria-labelledby="sessions-title">
      <div className="card-header">
        <div>
          <h2 id="sessions-title" className="card-title">Active sessions</h2>
          <p className="card-sub">Where your account is signed in</p>
        </div>
      </div>
      <div className="card-body">
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        <ul className="session-list" aria-label="Active sessions">
          {(rows ?? []).map((s) => (
            <li key={s.id}>
              <div>
                <strong>{s.device || 'Unknown device'}</strong> {s.current && <span className="badge">This browser</span>}
                <p className="field-hint">
                  {s.ip || 'unknown IP'} · last used {when(s.last_used_at)} · signed in {when(s.created_at)}
                </p>
              </div>
              {!s.current && (
                <Button variant="secondary" size="sm" onClick={() => void end(s.id)} aria-label={`Sign out ${s.device || 'session'} ${s.ip}`}>
                  Sign out
                </Button>
              )}
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
