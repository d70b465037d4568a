import { useNavigate } from '@tanstack/react-router';
import { passwordChangeSchema, profileSchema } from '@parley/shared';
import { type FormEvent, useState } from 'react';
import { serverError } from '../../lib/api';
import { useFormFields, validate } from '../../lib/validate';
import { useAuth } from '../../stores/auth';
import { useSettings } from '../../stores/settings';
import { PasswordToggle } from '../AuthFrame';
import { SettingsStrength } from '../StrengthMeter';
import { Banner, Button, Dialog, TextField } from '../ui';

/** Profile card: name and email (PUT /api/vms/user/update). */
export function ProfileForm() {
  const user = useAuth((s) => s.user);
  const setUser = useAuth((s) => s.setUser);
  const updateProfile = useSettings((s) => s.updateProfile);
  const { values, errors, setErrors, set } = useFormFields({ name: user?.name ?? '', email: user?.email ?? '' });
  const [success, setSuccess] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setSuccess('');
    setError('');
    const res = validate(profileSchema, values);
    if (!res.ok) return setErrors(res.errors);
    setBusy(true);
    try {
      const { user: updated, notice } = await updateProfile(res.data);
      setUser(updated ?? res.data);
      // A new sign-in email applies only once its confirmation link is opened: say so.
      setSuccess(notice ?? 'Profile updated successfully');
    } catch (err) {
      setError(serverError(err, 'Failed to update profile'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="profile-title">
      <div className="card-header">
        <div>
          <h2 id="profile-title" className="card-title">Profile</h2>
          <p className="card-sub">Your name and sign-in email</p>
        </div>
      </div>
      <div className="card-body">
        {success && <Banner kind="success" onDismiss={() => setSuccess('')}>{success}</Banner>}
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        <form onSubmit={onSubmit} noValidate aria-label="Profile">
          <TextField label="Name" name="profile_name" autoComplete="name" value={values.name} error={errors.name} onChange={(e) => set('name', e.target.value)} />
          <TextField label="Email" name="profile_email" type="email" autoComplete="email" value={values.email} error={errors.email} onChange={(e) => set('email', e.target.value)} />
          <div className="form-actions">
            <Button type="submit" busy={busy}>{busy ? 'Saving...' : 'Update Profile'}</Button>
          </div>
        </form>
      </div>
    </section>
  );
}

/** Password card: current, new, confirm with the strength indicator (PUT /api/vms/password/update). */
export function PasswordForm() {
  const updatePassword = useSettings((s) => s.updatePassword);
  const { values, setValues, errors, setErrors, set } = useFormFields({ current: '', new: '', confirm: '' });
  const [success, setSuccess] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [shown, setShown] = useState(false);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setSuccess('');
    setError('');
    const res = validate(passwordChangeSchema, values);
    if (!res.ok) {
      setErrors(res.errors);
      if (res.errors.confirm === 'New passwords do not match') setError('New passwords do not match');
      return;
    }
    setBusy(true);
    try {
      await updatePassword(res.data);
      setValues({ current: '', new: '', confirm: '' });
      setSuccess('Password updated successfully');
    } catch (err) {
      setError(serverError(err, 'Failed to update password'));
    } finally {
      setBusy(false);
    }
  };

  const type = shown ? 'text' : 'password';
  return (
    <section className="card" aria-labelledby="password-title">
      <div className="card-header">
        <div>
          <h2 id="password-title" className="card-title">Change Password</h2>
          <p className="card-sub">Other sessions are signed out when you change it</p>
        </div>
      </div>
      <div className="card-body">
        {success && <Banner kind="success" onDismiss={() => setSuccess('')}>{success}</Banner>}
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        <form onSubmit={onSubmit} noValidate aria-label="Change password">
          <TextField label="Current password" name="current" type={type} autoComplete="current-password" value={values.current} error={errors.current} onChange={(e) => set('current', e.target.value)} trailing={<PasswordToggle shown={shown} onToggle={() => setShown((v) => !v)} />} />
          <TextField label="New password" name="new" type={type} autoComplete="new-password" value={values.new} error={errors.new} onChange={(e) => set('new', e.target.value)} />
          <SettingsStrength password={values.new} />
          <div style={{ height: 12 }} />
          <TextField label="Confirm new password" name="confirm" type={type} autoComplete="new-password" value={values.confirm} error={errors.confirm} onChange={(e) => set('confirm', e.target.value)} />
          <div className="form-actions">
            <Button type="submit" busy={busy}>{busy ? 'Updating...' : 'Update Password'}</Button>
          </div>
        </form>
      </div>
    </section>
  );
}

/** Danger Zone (admins only): delete the account after a confirmation dialog. */
export function DangerZone() {
  const navigate = useNavigate();
  const logout = useAuth((s) => s.logout);
  const deleteAccount = useSettings((s) => s.deleteAccount);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  const onDelete = async () => {
    setBusy(true);
    setError('');
    try {
      await deleteAccount();
      setOpen(false);
      await logout();
      void navigate({ to: '/login' });
    } catch (err) {
      setError(serverError(err, 'Failed to delete account'));
      setOpen(false);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card danger-zone" aria-labelledby="danger-title">
      <div className="card-header">
        <div>
          <h2 id="danger-title" className="card-title">Danger Zone</h2>
          <p className="card-sub">Deleting your account removes your team, visitors and conversations for good.</p>
        </div>
        <Button variant="danger" onClick={() => setOpen(true)}>Delete Account</Button>
      </div>
      {error && (
        <div className="card-body">
          <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>
        </div>
      )}
      <Dialog
        open={open}
        size="sm"
        title="Delete account?"
        description="This permanently deletes your account and all of its data. This cannot be undone."
        onClose={() => !busy && setOpen(false)}
        footer={
          <>
            <Button variant="secondary" onClick={() => setOpen(false)} disabled={busy}>Cancel</Button>
            <Button variant="danger" busy={busy} onClick={onDelete}>{busy ? 'Deleting...' : 'Yes, delete my account'}</Button>
          </>
        }
      >
        <p className="muted">You will be signed out immediately.</p>
      </Dialog>
    </section>
  );
}
