import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { AuthFrame, PasswordToggle } from '../AuthFrame';
import { Banner, Button, TextField } from '../ui';
import { ApiError, api, serverError } from '../../lib/api';
import { loadShared } from '../../lib/lazyShared';
import { firstErrors, useFormFields, validate } from '../../lib/validate';

/** /reset-password?token=... (issue 14): the emailed link; choosing a password signs out everywhere. */
export default function ResetPassword() {
  const navigate = useNavigate();
  const token = new URLSearchParams(window.location.search).get('token') ?? '';
  const { values, errors, setErrors, set } = useFormFields({ password: '', password_confirmation: '' });
  const [formError, setFormError] = useState('');
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  const [shown, setShown] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setFormError('');
    const { resetPasswordSchema } = await loadShared();
    const res = validate(resetPasswordSchema, { token: token || 'x', ...values });
    if (!res.ok) {
      setErrors(res.errors);
      return;
    }
    setBusy(true);
    try {
      await api.post('/api/vms/password/reset', { ...values, token }, { auth: false });
      setDone(true);
    } catch (err) {
      if (err instanceof ApiError && err.errors && !err.errors.token) setErrors(firstErrors(err.errors));
      else setFormError(serverError(err, 'Could not reset the password. Please try again.'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame headline="Choose a new password" text="Every device signed in to your account will be signed out.">
      <h1>Reset your password</h1>
      {formError && <Banner kind="error" autoDismiss={false}>{formError}</Banner>}
      {done ? (
        <>
          <Banner kind="success" autoDismiss={false}>
            Your password was changed. Sign in with your new password.
          </Banner>
          <Button size="lg" block onClick={() => void navigate({ to: '/login' })}>
            Sign in
          </Button>
        </>
      ) : (
        <form onSubmit={submit} noValidate aria-label="Reset password">
          <TextField
            label="New password"
            type={shown ? 'text' : 'password'}
            name="password"
            autoComplete="new-password"
            value={values.password}
            error={errors.password}
            onChange={(e) => set('password', e.target.value)}
            trailing={<PasswordToggle shown={shown} onToggle={() => setShown((v) => !v)} />}
          />
          <TextField
            label="Confirm new password"
            type={shown ? 'text' : 'password'}
            name="password_confirmation"
            autoComplete="new-password"
            value={values.password_confirmation}
            error={errors.password_confirmation}
            onChange={(e) => set('password_confirmation', e.target.value)}
          />
          <Button type="submit" size="lg" block busy={busy}>
            {busy ? 'Saving...' : 'Set new password'}
          </Button>
        </form>
      )}
      <p className="auth-switch">
        <Link to="/forgot-password">Ask for a new link</Link>
      </p>
    </AuthFrame>
  );
}
