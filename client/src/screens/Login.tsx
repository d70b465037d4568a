import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { AuthFrame, PasswordToggle } from '../components/AuthFrame';
import { Banner, Button, TextField } from '../components/ui';
import { serverError } from '../lib/api';
import { useFormFields, validate } from '../lib/validate';
import { loadShared, useLazyShared } from '../lib/lazyShared';
import { useAuth } from '../stores/auth';
import { TwoFactorStep } from '../components/security/TwoFactorStep';


export default function Login() {
  const navigate = useNavigate();
  const user = useAuth((s) => s.user);
  const loading = useAuth((s) => s.loading);
  const login = useAuth((s) => s.login);
  const signedIn = useAuth((s) => s.signedIn);
  // Issue 14: a user with two-factor answers a second step (PRODUCT.md section 11).
  const [challenge, setChallenge] = useState<{ challenge: string; setup: boolean } | null>(null);
  const { values, errors, setErrors, set } = useFormFields({ email: '', password: '' });
  const [formError, setFormError] = useState('');
  const [busy, setBusy] = useState(false);
  const [shown, setShown] = useState(false);
  const submitted = useRef(false);
  const { warm } = useLazyShared();

  // A signed-in user opening /login goes to the dashboard.
  useEffect(() => {
    if (!loading && user && !submitted.current) void navigate({ to: '/dashboard', replace: true });
  }, [loading, user, navigate]);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setFormError('');
    const { loginSchema } = await loadShared();
    const res = validate(loginSchema, values);
    if (!res.ok) {
      setErrors(res.errors);
      return;
    }
    setBusy(true);
    submitted.current = true;
    try {
      const step = await login(res.data);
      if ('two_factor_required' in step) {
        submitted.current = false;
        setChallenge({ challenge: step.challenge, setup: step.setup_required === true });
        return;
      }
      void navigate({ to: '/dashboard' });
    } catch (err) {
      submitted.current = false;
      const msg = serverError(err, 'Login failed. Please check your credentials.');
      setFormError(msg);
      window.alert(msg);
    } finally {
      setBusy(false);
    }
  };

  if (challenge) {
    return (
      <AuthFrame headline="Welcome back to Parley" text="Pick up every conversation right where you left it.">
        <TwoFactorStep
          challenge={challenge.challenge}
          setup={challenge.setup}
          onRestart={() => setChallenge(null)}
          onDone={(res) => {
            submitted.current = true;
            signedIn(res);
            void navigate({ to: '/dashboard' });
          }}
        />
      </AuthFrame>
    );
  }

  return (
    <AuthFrame headline="Welcome back to Parley" text="Pick up every conversation right where you left it.">
      <h1>Sign in</h1>
      <p className="auth-sub">Sign in to your account to continue.</p>
      {formError && <Banner kind="error">{formError}</Banner>}
      <form onSubmit={onSubmit} onFocus={warm} onPointerEnter={warm} noValidate aria-label="Sign in">
        <TextField label="Email" type="email" name="email" autoComplete="email" placeholder="you@company.com" value={values.email} error={errors.email} onChange={(e) => set('email', e.target.value)} />
        <TextField
          label="Password"
          type={shown ? 'text' : 'password'}
          name="password"
          autoComplete="current-password"
          placeholder="Your password"
          value={values.password}
          error={errors.password}
          onChange={(e) => set('password', e.target.value)}
          trailing={<PasswordToggle shown={shown} onToggle={() => setShown((v) => !v)} />}
        />
        <Button type="submit" size="lg" block busy={busy}>
          {busy ? 'Signing In...' : 'Sign In'}
        </Button>
      </form>
      <p className="auth-switch">
        <Link to="/forgot-password">Forgot your password?</Link>
      </p>
      <p className="auth-switch">
        Don't have an account? <Link to="/register">Create one</Link>
      </p>
    </AuthFrame>
  );
}
