import { greetingsSchema } from '@parley/shared';
import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { OnboardingShell } from '../../components/onboarding/OnboardingShell';
import { useStepLoad } from '../../components/onboarding/useStepLoad';
import { Banner, Button, Spinner, TextAreaField } from '../../components/ui';
import { ApiError } from '../../lib/api';
import { type FormErrors, firstErrors, validate } from '../../lib/validate';
import { ReadOnlyNotice } from '../../components/settings/ReadOnlyNotice';
import { useCan } from '../../stores/auth';
import { useOnboarding } from '../../stores/onboarding';

/** Onboarding step 2 (/greetings): initial and follow-up greeting. Back does not save. */
export default function Greetings() {
  const navigate = useNavigate();
  // Who may not write (an Agent) walks the steps read only: Next moves on without saving.
  const canWrite = useCan('settings.write');
  const { greetings, setGreetings, loadGreetings, saveGreetings } = useOnboarding();
  const { loading, error, setError } = useStepLoad(loadGreetings, 'Failed to load data. Please try again.');
  const [errors, setErrors] = useState<FormErrors>({});
  const [saving, setSaving] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!canWrite) return void navigate({ to: '/account-info' });
    const res = validate(greetingsSchema, greetings);
    if (!res.ok) return setErrors(res.errors);
    setSaving(true);
    setError('');
    try {
      await saveGreetings(res.data);
      await navigate({ to: '/account-info' });
    } catch (err) {
      if (err instanceof ApiError && err.errors) setErrors(firstErrors(err.errors));
      setError('Failed to save greetings. Please try again.');
    } finally {
      setSaving(false);
    }
  };

  return (
    <OnboardingShell step={2} title="Proactive greetings" subtitle="Welcome visitors before they even ask.">
      {error && <Banner kind="error">{error}</Banner>}
      {loading ? (
        <div className="ob-loading">
          <Spinner label="Loading greetings" /> Loading greetings...
        </div>
      ) : (
        <form className="ob-form" onSubmit={submit} noValidate>
          {!canWrite && <ReadOnlyNotice />}
          <fieldset className="plain-fieldset" disabled={!canWrite}>
          <TextAreaField
            label="Initial greeting"
            rows={3}
            value={greetings.initial_greeting}
            error={errors.initial_greeting}
            placeholder="Hello! How can we assist you today?"
            onChange={(e) => {
              setGreetings({ initial_greeting: e.target.value });
              if (errors.initial_greeting) setErrors((x) => ({ ...x, initial_greeting: undefined }));
            }}
          />
          <TextAreaField
            label="Follow-up greeting (optional)"
            rows={3}
            value={greetings.follow_up_greeting}
            error={errors.follow_up_greeting}
            placeholder="Feel free to ask any questions!"
            onChange={(e) => {
              setGreetings({ follow_up_greeting: e.target.value });
              if (errors.follow_up_greeting) setErrors((x) => ({ ...x, follow_up_greeting: undefined }));
            }}
          />
          </fieldset>
          <div className="ob-actions">
            <Button variant="secondary" onClick={() => navigate({ to: '/widget-settings' })} disabled={saving}>
              Back
            </Button>
            <Button type="submit" busy={saving}>
              Next
            </Button>
          </div>
        </form>
      )}
    </OnboardingShell>
  );
}
