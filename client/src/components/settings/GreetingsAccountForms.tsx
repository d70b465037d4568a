import { accountInfoSchema, greetingsSchema } from '@parley/shared';
import { type FormEvent, type ReactNode, useEffect, useState } from 'react';
import type { z } from 'zod';
import { ApiError } from '../../lib/api';
import { type FormErrors, firstErrors, validate } from '../../lib/validate';
import { useCan } from '../../stores/auth';
import { type AccountInfo, type Greetings, useOnboarding } from '../../stores/onboarding';
import { Banner, Button, Spinner, TextAreaField, TextField } from '../ui';
import { ReadOnlyNotice } from './ReadOnlyNotice';

/**
 * The onboarding wizard's steps 2 and 3 as Settings cards: the same calls, schemas and
 * messages as /greetings and /account-info, so they can be changed any time after onboarding.
 */
function useSectionForm<V extends { [K in keyof V]: string }>(opts: {
  load: () => Promise<V>;
  save: (values: V) => Promise<void>;
  schema: z.ZodType;
  loadFailed: string;
  saveFailed: string;
  saved: string;
}) {
  const [values, setValues] = useState<V | null>(null);
  const [errors, setErrors] = useState<FormErrors>({});
  const [error, setError] = useState('');
  const [success, setSuccess] = useState('');
  const [busy, setBusy] = useState(false);
  const { load, loadFailed } = opts;

  useEffect(() => {
    let live = true;
    load()
      .then((v) => live && setValues(v))
      .catch((e: unknown) => {
        console.error(e);
        if (live) setError(loadFailed);
      });
    return () => {
      live = false;
    };
  }, [load, loadFailed]);

  const set = (k: keyof V & string, v: string) => {
    setValues((s) => (s ? { ...s, [k]: v } : s));
    setErrors((x) => (x[k] ? { ...x, [k]: undefined } : x));
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!values) return;
    setSuccess('');
    setError('');
    const res = validate(opts.schema, values);
    if (!res.ok) return setErrors(res.errors);
    setBusy(true);
    try {
      await opts.save(res.data as V);
      setSuccess(opts.saved);
    } catch (err) {
      if (err instanceof ApiError && err.errors) setErrors(firstErrors(err.errors));
      setError(opts.saveFailed);
    } finally {
      setBusy(false);
    }
  };

  return { values, errors, error, setError, success, setSuccess, busy, set, onSubmit };
}

function SectionCard({ id, title, sub, children }: { id: string; title: string; sub: string; children: ReactNode }) {
  return (
    <section className="card" aria-labelledby={id}>
      <div className="card-header">
        <div>
          <h2 id={id} className="card-title">{title}</h2>
          <p className="card-sub">{sub}</p>
        </div>
      </div>
      <div className="card-body">{children}</div>
    </section>
  );
}

const loadGreetings = async (): Promise<Greetings> => {
  await useOnboarding.getState().loadGreetings();
  return useOnboarding.getState().greetings;
};
const saveGreetings = (v: Greetings) => useOnboarding.getState().saveGreetings(v);
const loadAccount = () => useOnboarding.getState().loadAccount();
const saveAccount = (v: AccountInfo) => useOnboarding.getState().saveAccount(v);

/** Proactive greetings (as onboarding step 2). */
export function GreetingsForm() {
  const canWrite = useCan('settings.write');
  const f = useSectionForm({
    load: loadGreetings,
    save: saveGreetings,
    schema: greetingsSchema,
    loadFailed: 'Failed to load data. Please try again.',
    saveFailed: 'Failed to save greetings. Please try again.',
    saved: 'Greetings updated successfully',
  });
  return (
    <SectionCard id="greetings-title" title="Proactive Greetings" sub="What the widget says before a visitor asks">
      {f.success && <Banner kind="success" onDismiss={() => f.setSuccess('')}>{f.success}</Banner>}
      {f.error && <Banner kind="error" onDismiss={() => f.setError('')}>{f.error}</Banner>}
      {!f.values ? (
        !f.error && <div className="loading-block"><Spinner /><p>Loading greetings...</p></div>
      ) : (
        <form onSubmit={f.onSubmit} noValidate aria-label="Greetings">
          {!canWrite && <ReadOnlyNotice />}
          <fieldset className="plain-fieldset" disabled={!canWrite}>
            <TextAreaField label="Initial greeting" rows={3} value={f.values.initial_greeting} error={f.errors.initial_greeting} placeholder="Hello! How can we assist you today?" onChange={(e) => f.set('initial_greeting', e.target.value)} />
            <TextAreaField label="Follow-up greeting (optional)" rows={3} value={f.values.follow_up_greeting} error={f.errors.follow_up_greeting} placeholder="Feel free to ask any questions!" onChange={(e) => f.set('follow_up_greeting', e.target.value)} />
          </fieldset>
          {canWrite && (
            <div className="form-actions">
              <Button type="submit" busy={f.busy}>{f.busy ? 'Saving...' : 'Save Greetings'}</Button>
            </div>
          )}
        </form>
      )}
    </SectionCard>
  );
}

/** Website, phone and location (as onboarding step 3). */
export function AccountInfoForm() {
  const canWrite = useCan('settings.write');
  const f = useSectionForm({
    load: loadAccount,
    save: saveAccount,
    schema: accountInfoSchema,
    loadFailed: 'Failed to load data. Please try again.',
    saveFailed: 'Failed to save account info. Please try again.',
    saved: 'Account information updated successfully',
  });
  return (
    <SectionCard id="account-info-title" title="Account Information" sub="Your business's website, phone and location. Every field is optional.">
      {f.success && <Banner kind="success" onDismiss={() => f.setSuccess('')}>{f.success}</Banner>}
      {f.error && <Banner kind="error" onDismiss={() => f.setError('')}>{f.error}</Banner>}
      {!f.values ? (
        !f.error && <div className="loading-block"><Spinner /><p>Loading account information...</p></div>
      ) : (
        <form onSubmit={f.onSubmit} noValidate aria-label="Account information">
          {!canWrite && <ReadOnlyNotice />}
          <fieldset className="plain-fieldset" disabled={!canWrite}>
            <TextField label="Website URL" type="url" inputMode="url" autoComplete="url" placeholder="https://example.com" value={f.values.website_url} onChange={(e) => f.set('website_url', e.target.value)} error={f.errors.website_url} />
            <TextField label="Phone number" type="tel" autoComplete="tel" placeholder="+1 555 123 4567" value={f.values.phone_number} onChange={(e) => f.set('phone_number', e.target.value)} error={f.errors.phone_number} />
            <TextField label="Business location" autoComplete="address-level2" placeholder="City, Country" value={f.values.business_location} onChange={(e) => f.set('business_location', e.target.value)} error={f.errors.business_location} />
          </fieldset>
          {canWrite && (
            <div className="form-actions">
              <Button type="submit" busy={f.busy}>{f.busy ? 'Saving...' : 'Save Account Information'}</Button>
            </div>
          )}
        </form>
      )}
    </SectionCard>
  );
}
