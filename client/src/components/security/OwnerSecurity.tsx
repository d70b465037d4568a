import { AUDIT_ACTIONS, type AuditEntryDto, type SecurityStatusDto, type TeamMemberDto } from '@parley/shared';
import { useCallback, useEffect, useState } from 'react';
import { api, serverError } from '../../lib/api';
import { Banner, Button, SelectField, Toggle } from '../ui';

/** The owner's team rules: require two-factor for everyone, sign a member out everywhere. */
export function TeamSecurityCard({ status, reload }: { status: SecurityStatusDto; reload: () => void }) {
  const [members, setMembers] = useState<TeamMemberDto[]>([]);
  const [member, setMember] = useState('');
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  useEffect(() => {
    api
      .getData<TeamMemberDto[]>('/api/vms/team')
      .then(setMembers)
      .catch(() => setMembers([]));
  }, []);

  const requireAll = async (on: boolean) => {
    setError('');
    try {
      await api.put('/api/vms/security/settings', { require_two_factor: on });
      setNotice(on ? 'Two-factor sign-in is now required. Members without it were signed out and set it up at their next sign-in.' : 'Two-factor sign-in is no longer required.');
      reload();
    } catch (e) {
      setError(serverError(e, 'Could not save the setting'));
    }
  };
  const signOut = async () => {
    if (!member) return;
    setError('');
    try {
      const res = await api.post<{ sessions_ended: number }>(`/api/vms/team/${member}/sign-out`);
      setNotice(`Signed out everywhere (${res.sessions_ended} session${res.sessions_ended === 1 ? '' : 's'} ended).`);
    } catch (e) {
      setError(serverError(e, 'Could not sign the member out'));
    }
  };

  return (
    <section className="card" aria-labelledby="team-security-title">
      <div className="card-header">
        <div>
          <h2 id="team-security-title" className="card-title">Team security</h2>
          <p className="card-sub">Rules for everyone in your account</p>
        </div>
      </div>
      <div className="card-body">
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        {notice && <Banner kind="success" onDismiss={() => setNotice('')}>{notice}</Banner>}
        <Toggle label="Require two-factor sign-in for the whole team" description={status.two_factor_enabled ? 'Members without it set it up at their next sign-in' : 'Turn on two-factor sign-in for yourself first'} checked={status.require_two_factor} disabled={!status.two_factor_enabled && !status.require_two_factor} onChange={(v) => void requireAll(v)} />
        <SelectField label="Sign a member out everywhere" value={member} onChange={(e) => setMember(e.target.value)}>
          <option value="">Choose a member</option>
          {members.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name} ({m.email})
            </option>
          ))}
        </SelectField>
        <div className="form-actions">
          <Button variant="secondary" disabled={!member} onClick={() => void signOut()}>
            Sign out everywhere
          </Button>
        </div>
      </div>
    </section>
  );
}

/** The owner's audit log: who did what, when, from where; filtered by action, newest first, "Load more". */
export function AuditLogCard() {
  const [action, setAction] = useState('');
  const [rows, setRows] = useState<AuditEntryDto[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState('');
  const load = useCallback(
    async (after: string | null) => {
      try {
        const res = await api.get<{ data: AuditEntryDto[]; next_cursor: string | null }>('/api/vms/audit-log', { query: { limit: 50, action: action || undefined, cursor: after ?? undefined } });
        setRows((old) => (after ? [...old, ...res.data] : res.data));
        setCursor(res.next_cursor);
      } catch (e) {
        setError(serverError(e, 'Could not load the audit log'));
      }
    },
    [action],
  );
  useEffect(() => {
    void load(null);
  }, [load]);

  return (
    <section className="card" aria-labelledby="audit-title">
      <div className="card-header">
        <div>
          <h2 id="audit-title" className="card-title">Audit log</h2>
          <p className="card-sub">Sign-ins, security, team and settings changes, exports and erasures</p>
        </div>
      </div>
      <div className="card-body">
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        <SelectField label="Action" value={action} onChange={(e) => setAction(e.target.value)}>
          <option value="">All actions</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </SelectField>
        <div className="table-wrap">
          <table className="table" aria-label="Audit log">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <td>{new Date(r.created_at).toLocaleString()}</td>
                  <td>{r.actor.name ?? r.actor.email ?? 'System'}</td>
                  <td>{r.action}</td>
                  <td>{r.target}</td>
                  <td>
                    {r.ip}
                    {r.device ? ` · ${r.device}` : ''}
                  </td>
                </tr>
              ))}
              {rows.length === 0 && (
                <tr>
                  <td colSpan={5}>No entries.</td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        {cursor && (
          <div className="form-actions">
            <Button variant="secondary" onClick={() => void load(cursor)}>
              Load more
            </Button>
          </div>
        )}
      </div>
    </section>
  );
}
