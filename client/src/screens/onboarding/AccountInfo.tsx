import { accountInfoSchema } from '@parley/shared';
import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { OnboardingShell } from '../../components/onboarding/OnboardingShell';
import { useStepLoad } from '../../components/onboarding/useStepLoad';
import { Banner, Button, Spinner, TextField } from '../../components/ui';
import { ApiError } from '../../lib/api';
import { type FormErrors, firstErrors, validate } from '../../lib/validate';
import { ReadOnlyNotice } from '../../components/settings/ReadOnlyNotice';
import { useCan } from '../../stores/auth';
import { type AccountInfo as AccountInfoValues, useOnboarding } from '../../stores/onboarding';

/** Onboarding step 3 (/account-info): website URL, phone, business location. Finish -> /dashboard. */
export default function AccountInfo() {
  const navigate = useNavigate();
  // Who may not write (an Agent) walks the steps read only: Next moves on without saving.
  const canWrite = useCan('settings.write');
  const { account, setAccount, loadAccount, saveAccount } = useOnboarding();
  const { loading, error, setError } = useStepLoad(loadAccount, 'Failed to load data. Please try again.');
  const [errors, setErrors] = useState<FormErrors>({});
  const [saving, setSaving] = useState(false);

  const edit = (field: keyof AccountInfoValues) => (e: { target: { value: string } }) => {
    setAccount({ [field]: e.target.value });
    if (errors[field]) setErrors((x) => ({ ...x, [field]: undefined }));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!canWrite) return void navigate({ to: '/dashboard' });
    const res = validate(accountInfoSchema, account);
    if (!res.ok) return setErrors(res.errors);
    setSaving(true);
    setError('');
    try {
      await saveAccount(res.data);
      await navigate({ to: '/dashboard' });
    } catch (err) {
      if (err instanceof ApiError && err.errors) setErrors(firstErrors(err.errors));
      setError('Failed to save account info. Please try again.');
    } finally {
      setSaving(false);
    }
  };

  return (
    <OnboardingShell step={3} title="Account information" subtitle="Tell us a little about your business. Every field is optional.">
      {error && <Banner kind="error">{error}</Banner>}
      {loading ? (
        <div className="ob-loading">
          <Spinner label="Loading account information" /> Loading account information...
        </div>
      ) : (
        <form className="ob-form" onSubmit={submit} noValidate>
          {!canWrite && <ReadOnlyNotice />}
          <fieldset className="plain-fieldset" disabled={!canWrite}>
          <TextField label="Website URL" type="url" inputMode="url" autoComplete="url" placeholder="https://example.com" value={account.website_url} onChange={edit('website_url')} error={errors.website_url} />
          <TextField label="Phone number" type="tel" autoComplete="tel" placeholder="+1 555 123 4567" value={account.phone_number} onChange={edit('phone_number')} error={errors.phone_number} />
          <TextField label="Business location" autoComplete="address-level2" placeholder="City, Country" value={account.business_location} onChange={edit('business_location')} error={errors.business_location} />
          </fieldset>
          <div className="ob-actions">
            <Button variant="secondary" onClick={() => navigate({ to: '/greetings' })} disabled={saving}>
              Back
            </Button>
            <Button type="submit" busy={saving}>
              Finish
            </Button>
          </div>
        </form>
      )}
    </OnboardingShell>
  );
}
