import { Link } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { AuthFrame } from '../AuthFrame';
import { Banner, Button, TextField } from '../ui';
import { api, serverError } from '../../lib/api';
import { loadShared } from '../../lib/lazyShared';
import { validate } from '../../lib/validate';

/** /forgot-password (issue 14): asks for a reset link; the answer is the same for any email. */
export default function ForgotPassword() {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [notice, setNotice] = useState('');
  const [formError, setFormError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setFormError('');
    const { forgotPasswordSchema } = await loadShared();
    const res = validate(forgotPasswordSchema, { email });
    if (!res.ok) {
      setError(res.errors.email);
      return;
    }
    setError(undefined);
    setBusy(true);
    try {
      const answer = await api.post<{ notice: string }>('/api/vms/password/forgot', res.data, { auth: false });
      setNotice(answer.notice);
    } catch (err) {
      setFormError(serverError(err, 'Could not send the link. Please try again.'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame headline="Locked out?" text="We will email you a link to choose a new password.">
      <h1>Forgot your password?</h1>
      <p className="auth-sub">Enter the email you sign in with.</p>
      {formError && <Banner kind="error">{formError}</Banner>}
      {notice ? (
        <Banner kind="success" autoDismiss={false}>
          {notice}
        </Banner>
      ) : (
        <form onSubmit={submit} noValidate aria-label="Forgot password">
          <TextField label="Email" type="email" name="email" autoComplete="email" placeholder="you@company.com" value={email} error={error} onChange={(e) => setEmail(e.target.value)} />
          <Button type="submit" size="lg" block busy={busy}>
            {busy ? 'Sending...' : 'Send reset link'}
          </Button>
        </form>
      )}
      <p className="auth-switch">
        <Link to="/login">Back to sign in</Link>
      </p>
    </AuthFrame>
  );
}
