import type { AuthResponse, TwoFactorSetupDto } from '@parley/shared';
import { type FormEvent, useEffect, useState } from 'react';
import { api, serverError } from '../../lib/api';
import { Banner, Button, TextField } from '../ui';
import { RecoveryCodes } from './RecoveryCodes';

/**
 * The second step of a sign-in (PRODUCT.md section 11): an authenticator or recovery code for
 * the challenge; or, when the team requires two-factor and this user has none, its set-up.
 */
export function TwoFactorStep({ challenge, setup, onDone, onRestart }: { challenge: string; setup: boolean; onDone: (res: AuthResponse) => void; onRestart: () => void }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [qr, setQr] = useState<TwoFactorSetupDto | null>(null);
  const [codes, setCodes] = useState<{ res: AuthResponse; codes: string[] } | null>(null);

  useEffect(() => {
    if (!setup) return;
    api
      .postData<TwoFactorSetupDto>('/api/vms/login/2fa/setup', { challenge }, { auth: false })
      .then(setQr)
      .catch((e: unknown) => setError(serverError(e, 'Could not start the set-up. Please sign in again.')));
  }, [setup, challenge]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!code.trim()) {
      setError('Code is required');
      return;
    }
    setBusy(true);
    setError('');
    try {
      if (setup) {
        const res = await api.post<AuthResponse & { recovery_codes: string[] }>('/api/vms/login/2fa/enable', { challenge, code }, { auth: false });
        setCodes({ res, codes: res.recovery_codes });
      } else {
        onDone(await api.post<AuthResponse>('/api/vms/login/2fa', { challenge, code }, { auth: false }));
      }
    } catch (err) {
      setError(serverError(err, 'The code is not valid'));
    } finally {
      setBusy(false);
    }
  };

  if (codes) {
    return (
      <>
        <h1>Save your recovery codes</h1>
        <RecoveryCodes codes={codes.codes} />
        <Button size="lg" block onClick={() => onDone(codes.res)}>
          Continue
        </Button>
      </>
    );
  }

  return (
    <>
      <h1>Two-factor sign-in</h1>
      {setup ? (
        <p className="auth-sub">Your team requires two-factor sign-in. Scan this code with an authenticator app, then enter the 6-digit code it shows.</p>
      ) : (
        <p className="auth-sub">Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
      )}
      {error && <Banner kind="error">{error}</Banner>}
      {setup && qr && (
        <div className="two-factor-qr">
          <img src={qr.qr} alt="QR code for your authenticator app" width={200} height={200} />
          <p className="field-hint">
            Or enter this key: <code>{qr.secret}</code>
          </p>
        </div>
      )}
      <form onSubmit={submit} noValidate aria-label="Two-factor code">
        <TextField label="Code" name="code" autoComplete="one-time-code" inputMode="text" autoFocus value={code} onChange={(e) => setCode(e.target.value)} />
        <Button type="submit" size="lg" block busy={busy}>
          {busy ? 'Checking...' : 'Verify'}
        </Button>
      </form>
      <p className="auth-switch">
        <button type="button" className="link-button" onClick={onRestart}>
          Back to sign in
        </button>
      </p>
    </>
  );
}
