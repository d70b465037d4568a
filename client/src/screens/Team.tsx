import { addMemberSchema, type TeamMemberDto } from '@parley/shared';
import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { BellButton, PageHeader } from '../components/layout/PageHeader';
import { Icon } from '../components/icons';
import { Banner, Button, Dialog, SelectField, Spinner, TextField } from '../components/ui';
import { ApiError, joinFieldErrors } from '../lib/api';
import { avatarStyle, initial } from '../lib/format';
import { useFormFields, validate } from '../lib/validate';
import { isAdmin, useAuth } from '../stores/auth';
import { type AssignableUser, useTeam } from '../stores/team';

const EMPTY_FORM = { name: '', email: '', password: '', role_id: '' };

function AddMemberDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { roles, add } = useTeam();
  const { values, setValues, errors, setErrors, set } = useFormFields(EMPTY_FORM);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const close = () => {
    setErrors({});
    setError('');
    onClose();
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setError('');
    const res = validate(addMemberSchema, { ...values, role_id: values.role_id || undefined });
    if (!res.ok) return setErrors(res.errors);
    setBusy(true);
    try {
      await add(res.data);
      setValues(EMPTY_FORM);
      close();
    } catch (err) {
      const joined = err instanceof ApiError ? joinFieldErrors(err.errors) : '';
      setError(joined || 'Failed to add team member.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={open}
      title="Add Team Member"
      onClose={close}
      footer={
        <>
          <Button variant="secondary" onClick={close}>Cancel</Button>
          <Button type="submit" form="add-member-form" busy={busy}>{busy ? 'Adding...' : 'Add Member'}</Button>
        </>
      }
    >
      {error && <Banner kind="error">{error}</Banner>}
      <form id="add-member-form" onSubmit={onSubmit} noValidate aria-label="Add team member">
        <TextField label="Name" name="member_name" value={values.name} error={errors.name} onChange={(e) => set('name', e.target.value)} />
        <TextField label="Email" name="member_email" type="email" value={values.email} error={errors.email} onChange={(e) => set('email', e.target.value)} />
        <TextField label="Password" name="member_password" type="password" autoComplete="new-password" value={values.password} error={errors.password} onChange={(e) => set('password', e.target.value)} />
        <SelectField label="Role" name="role_id" value={values.role_id} error={errors.role_id} onChange={(e) => set('role_id', e.target.value)}>
          <option value="">Select a role</option>
          {roles.map((r) => <option key={r.id} value={r.id}>{r.name}</option>)}
        </SelectField>
      </form>
    </Dialog>
  );
}

function AssignDialog({ member, onClose }: { member: TeamMemberDto | null; onClose: () => void }) {
  const { users, usersNext, usersLoading, loadUsers, loadMoreUsers, loadAssignments, assign } = useTeam();
  const [picked, setPicked] = useState<Set<string>>(new Set());
  // The member's whole assignment (all pages): saving replaces the set, so it must be complete.
  const [assigned, setAssigned] = useState<AssignableUser[] | null>(null);
  const [query, setQuery] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!member) return;
    let live = true;
    setAssigned(null);
    setPicked(new Set());
    setQuery('');
    setError('');
    void loadUsers('');
    loadAssignments(member.id).then(
      (list) => {
        if (!live) return;
        setAssigned(list);
        setPicked(new Set(list.map((u) => u.id)));
      },
      (e: unknown) => {
        console.error('Failed to load assigned users', e);
        if (live) setError('Failed to load assigned users. Please try again.');
      },
    );
    return () => {
      live = false;
    };
  }, [member, loadUsers, loadAssignments]);

  // Search as the owner types (a short pause first).
  useEffect(() => {
    if (!member) return;
    const timer = setTimeout(() => void loadUsers(query), 250);
    return () => clearTimeout(timer);
  }, [query, member, loadUsers]);

  const toggle = (id: string) => setPicked((s) => { const n = new Set(s); if (n.has(id)) n.delete(id); else n.add(id); return n; });

  const onSave = async () => {
    if (!member || assigned === null) return;
    setBusy(true);
    setError('');
    try {
      await assign(member.id, [...picked]);
      setPicked(new Set());
      onClose();
    } catch (e) {
      console.error('Failed to assign users', e);
      setError('Failed to assign users. Please try again.');
    } finally {
      setBusy(false);
    }
  };

  // Assigned users first (they may be on pages not loaded yet), then the rest as loaded.
  const shown = useMemo(() => {
    const list = [...(query.trim() ? [] : (assigned ?? []))];
    const seen = new Set(list.map((u) => u.id));
    for (const u of users) if (!seen.has(u.id)) list.push(u);
    return list;
  }, [assigned, users, query]);

  return (
    <Dialog
      open={member !== null}
      title={`Assign Users${member ? ` to ${member.name}` : ''}`}
      description="Assigned users' conversations become visible to this member."
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>Cancel</Button>
          <Button busy={busy} disabled={assigned === null} onClick={onSave}>{busy ? 'Saving...' : 'Save Assignment'}</Button>
        </>
      }
    >
      {error && <Banner kind="error">{error}</Banner>}
      <input
        type="search"
        className="input"
        placeholder="Search users..."
        aria-label="Search users"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        style={{ marginBottom: 12, width: '100%' }}
      />
      {assigned === null ? (
        <p className="muted">Loading assigned users...</p>
      ) : shown.length === 0 ? (
        <p className="muted">{query.trim() ? 'No users match your search.' : 'No users to assign yet. Users appear once visitors start conversations.'}</p>
      ) : (
        <fieldset style={{ border: 'none', padding: 0, margin: 0, maxHeight: 360, overflowY: 'auto' }}>
          <legend className="sr-only">Users</legend>
          <div className="checkbox-row" style={{ flexDirection: 'column', gap: 10 }}>
            {shown.map((u) => (
              <label key={u.id}>
                <input type="checkbox" checked={picked.has(u.id)} onChange={() => toggle(u.id)} />
                {u.name || 'Anonymous'}
              </label>
            ))}
          </div>
          {usersNext && (
            <Button variant="ghost" size="sm" busy={usersLoading} onClick={() => void loadMoreUsers()} style={{ marginTop: 8 }}>
              Load more users
            </Button>
          )}
        </fieldset>
      )}
    </Dialog>
  );
}

/** Team management (SPEC.md section 6): admins manage; members with the Admin role see a notice. */
export default function Team() {
  const user = useAuth((s) => s.user);
  const admin = isAdmin(user);
  const roleAdmin = user?.type === 'team_member' && user.role === 'Admin';
  const { members, loading, error, load, remove } = useTeam();
  const [addOpen, setAddOpen] = useState(false);
  const [assignFor, setAssignFor] = useState<TeamMemberDto | null>(null);
  const [actionError, setActionError] = useState('');

  useEffect(() => {
    if (admin) void load();
  }, [admin, load]);

  if (!admin && !roleAdmin) return null;

  const onDelete = async (m: TeamMemberDto) => {
    if (!window.confirm(`Are you sure you want to delete ${m.name}?`)) return;
    setActionError('');
    try {
      await remove(m.id);
    } catch (e) {
      console.error('Failed to delete team member', e);
      setActionError('Failed to delete team member. Please try again.');
    }
  };

  return (
    <>
      <PageHeader
        title="Team Management"
        subtitle="Invite teammates, set their roles and choose whose conversations they see"
        actions={
          <>
            {admin && <Button onClick={() => setAddOpen(true)}><Icon.plus /> Add Member</Button>}
            <BellButton />
          </>
        }
      />
      {!admin ? (
        <div className="card empty">
          <p>You do not have permission to view the team table.</p>
        </div>
      ) : (
        <>
          {error && <Banner kind="error">{error}</Banner>}
          {actionError && <Banner kind="error" onDismiss={() => setActionError('')}>{actionError}</Banner>}
          <section className="card" aria-labelledby="team-title">
            <div className="card-header">
              <h2 id="team-title" className="card-title">Members</h2>
              <span className="badge">{members.length} {members.length === 1 ? 'member' : 'members'}</span>
            </div>
            {loading ? (
              <div className="loading-block"><Spinner /><p>Loading team...</p></div>
            ) : members.length === 0 ? (
              <div className="empty">
                <div className="empty-icon"><Icon.team /></div>
                <h3>No team members yet</h3>
                <p>Add a member to share the work of answering visitors.</p>
              </div>
            ) : (
              <div className="table-wrap">
                <table className="table">
                  <thead>
                    <tr>
                      <th scope="col">Member</th>
                      <th scope="col">Role</th>
                      <th scope="col">Assigned users</th>
                      <th scope="col"><span className="sr-only">Actions</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    {members.map((m, i) => (
                      <tr key={m.id}>
                        <td>
                          <div className="cell-user">
                            <span className={`avatar avatar-sm ${avatarStyle(i)}`} aria-hidden="true">{initial(m.name, 'U')}</span>
                            <div>
                              <div className="cell-user-name">{m.name}</div>
                              <div className="cell-user-sub">{m.email}</div>
                            </div>
                          </div>
                        </td>
                        <td><span className={m.role?.name === 'Admin' ? 'badge' : 'badge badge-gray'}>{m.role?.name ?? '—'}</span></td>
                        <td>
                          {m.assigned_users.length === 0 ? (
                            <span className="muted">None</span>
                          ) : (
                            <div className="chip-list">
                              {m.assigned_users.map((u) => <span key={u.id} className="badge badge-gray">{u.name || 'Anonymous'}</span>)}
                              {(m.assigned_count ?? 0) > m.assigned_users.length && (
                                <span className="badge badge-gray">+{(m.assigned_count ?? 0) - m.assigned_users.length} more</span>
                              )}
                            </div>
                          )}
                        </td>
                        <td>
                          <div className="row-actions">
                            <Button variant="secondary" size="sm" onClick={() => setAssignFor(m)} aria-label={`Assign users to ${m.name}`}>Assign</Button>
                            <Button variant="ghost" size="sm" onClick={() => onDelete(m)} aria-label={`Delete ${m.name}`}><Icon.trash /></Button>
                          </div>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
          <AddMemberDialog open={addOpen} onClose={() => setAddOpen(false)} />
          <AssignDialog member={assignFor} onClose={() => setAssignFor(null)} />
        </>
      )}
    </>
  );
}
