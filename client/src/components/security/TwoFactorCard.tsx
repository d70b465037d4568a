import type { SecurityStatusDto, TwoFactorSetupDto } from '@parley/shared';
import { type FormEvent, useState } from 'react';
import { api, serverError } from '../../lib/api';
import { Banner, Button, TextField } from '../ui';
import { RecoveryCodes } from './RecoveryCodes';

/** Settings > Security: set up two-factor (scan, confirm a code, recovery codes shown once), new codes, turn off. */
export function TwoFactorCard({ status, reload }: { status: SecurityStatusDto; reload: () => void }) {
  const [setup, setSetup] = useState<TwoFactorSetupDto | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const run = async (work: () => Promise<void>, fallback: string) => {
    setBusy(true);
    setError('');
    try {
      await work();
    } catch (e) {
      setError(serverError(e, fallback));
    } finally {
      setBusy(false);
    }
  };
  const start = () => run(async () => setSetup(await api.postData<TwoFactorSetupDto>('/api/vms/user/two-factor/setup')), 'Could not start the set-up');
  const confirm = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const res = await api.post<{ recovery_codes: string[] }>('/api/vms/user/two-factor/enable', { code });
      setCodes(res.recovery_codes);
      setSetup(null);
      setCode('');
      reload();
    }, 'The code is not valid');
  };
  const withPassword = (path: string, after: (res: { recovery_codes?: string[] }) => void) => (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const res = await api.post<{ recovery_codes?: string[] }>(path, { password });
      setPassword('');
      after(res);
      reload();
    }, 'The password is incorrect');
  };

  return (
    <section className="card" aria-labelledby="two-factor-title">
      <div className="card-header">
        <div>
          <h2 id="two-factor-title" className="card-title">Two-factor sign-in</h2>
          <p className="card-sub">{status.two_factor_enabled ? `On · ${status.recovery_codes_left} recovery codes left` : 'Off: a code from an authenticator app protects your account even if your password leaks'}</p>
        </div>
      </div>
      <div className="card-body">
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        {codes && (
          <>
            <Banner kind="success" autoDismiss={false}>Two-factor sign-in is on.</Banner>
            <RecoveryCodes codes={codes} />
            <Button variant="secondary" onClick={() => setCodes(null)}>I saved my recovery codes</Button>
          </>
        )}
        {!status.two_factor_enabled && !setup && !codes && (
          <Button onClick={() => void start()} busy={busy}>Set up two-factor sign-in</Button>
        )}
        {setup && (
          <form onSubmit={confirm} noValidate aria-label="Confirm two-factor set-up">
            <p className="field-hint">Scan this QR code with an authenticator app (Google Authenticator, 1Password, Authy...), then enter the 6-digit code it shows.</p>
            <img src={setup.qr} alt="QR code for your authenticator app" width={200} height={200} />
            <p className="field-hint">
              Or enter this key: <code data-testid="totp-secret">{setup.secret}</code>
            </p>
            <TextField label="Code from the app" name="code" autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} />
            <div className="form-actions">
              <Button type="submit" busy={busy}>Turn on</Button>
            </div>
          </form>
        )}
        {status.two_factor_enabled && !codes && (
          <form noValidate aria-label="Manage two-factor sign-in">
            <TextField label="Your password" type="password" name="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
            <div className="form-actions">
              <Button variant="secondary" busy={busy} onClick={withPassword('/api/vms/user/two-factor/recovery-codes', (r) => setCodes(r.recovery_codes ?? null))}>
                New recovery codes
              </Button>
              {!status.require_two_factor && (
                <Button variant="danger" busy={busy} onClick={withPassword('/api/vms/user/two-factor/disable', () => setCodes(null))}>
                  Turn off
                </Button>
              )}
            </div>
          </form>
        )}
      </div>
    </section>
  );
}
