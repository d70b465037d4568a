import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { AuthFrame, PasswordToggle } from '../components/AuthFrame';
import { RegisterStrength } from '../components/RegisterStrength';
import { Banner, Button, TextField } from '../components/ui';
import { ApiError } from '../lib/api';
import { firstErrors, useFormFields, validate } from '../lib/validate';
import { loadShared, useLazyShared } from '../lib/lazyShared';
import { useAuth } from '../stores/auth';


export default function Register() {
  const navigate = useNavigate();
  const user = useAuth((s) => s.user);
  const loading = useAuth((s) => s.loading);
  const register = useAuth((s) => s.register);
  const { values, errors, setErrors, set } = useFormFields({ name: '', email: '', password: '', password_confirmation: '' });
  const [formError, setFormError] = useState('');
  const [busy, setBusy] = useState(false);
  const [shown, setShown] = useState(false);
  const submitted = useRef(false);
  const { shared, warm } = useLazyShared();

  // A signed-in user opening /register is sent to the onboarding wizard.
  useEffect(() => {
    if (!loading && user && !submitted.current) void navigate({ to: '/widget-settings', replace: true });
  }, [loading, user, navigate]);

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setFormError('');
    const { registerSchema } = await loadShared();
    const res = validate(registerSchema, values);
    if (!res.ok) {
      setErrors(res.errors);
      return;
    }
    setBusy(true);
    submitted.current = true;
    try {
      await register(res.data);
      void navigate({ to: '/dashboard' });
    } catch (err) {
      submitted.current = false;
      const fieldErrors = err instanceof ApiError ? firstErrors(err.errors) : {};
      if (Object.keys(fieldErrors).length) setErrors(fieldErrors);
      else setFormError('Registration failed. Please try again.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame headline="Turn visitors into customers" text="Chat live with the people on your website, with an AI assistant at your side.">
      <h1>Create your account</h1>
      <p className="auth-sub">Start your 14-day free trial. No credit card required.</p>
      {formError && <Banner kind="error">{formError}</Banner>}
      <form onSubmit={onSubmit} onFocus={warm} onPointerEnter={warm} noValidate aria-label="Create account">
        <TextField label="Full name" name="name" autoComplete="name" placeholder="Jane Cooper" value={values.name} error={errors.name} onChange={(e) => set('name', e.target.value)} />
        <TextField label="Email" type="email" name="email" autoComplete="email" placeholder="you@company.com" value={values.email} error={errors.email} onChange={(e) => set('email', e.target.value)} />
        <TextField
          label="Password"
          type={shown ? 'text' : 'password'}
          name="password"
          autoComplete="new-password"
          placeholder="At least 8 characters"
          value={values.password}
          error={errors.password}
          onChange={(e) => set('password', e.target.value)}
          trailing={<PasswordToggle shown={shown} onToggle={() => setShown((v) => !v)} />}
        />
        {shared && <RegisterStrength password={values.password} score={shared.registerPasswordScore} label={shared.registerPasswordLabel} />}
        <div style={{ height: 12 }} />
        <TextField
          label="Confirm password"
          type={shown ? 'text' : 'password'}
          name="password_confirmation"
          autoComplete="new-password"
          placeholder="Repeat your password"
          value={values.password_confirmation}
          error={errors.password_confirmation}
          onChange={(e) => set('password_confirmation', e.target.value)}
        />
        <Button type="submit" size="lg" block busy={busy}>
          {busy ? 'Creating Account...' : 'Create Account'}
        </Button>
        <p className="auth-legal">
          By creating an account you agree to our <Link to="/terms">Terms of Service</Link> and <Link to="/privacy">Privacy Policy</Link>.
        </p>
      </form>
      <p className="auth-switch">
        Already have an account? <Link to="/login">Sign in</Link>
      </p>
    </AuthFrame>
  );
}
