import { WIDGET_LANGUAGES, type WidgetLanguageDto } from '@parley/shared';
import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, api, unwrap } from '../../lib/api';
import { useCan } from '../../stores/auth';
import { Banner, Button, Spinner, TextAreaField } from '../ui';
import { ReadOnlyNotice } from './ReadOnlyNotice';

const names = (() => {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' });
  } catch {
    return undefined;
  }
})();
/** "Russian (ru)": the language's English name and its code. */
const languageName = (code: string) => `${names?.of(code) ?? code} (${code})`;

/**
 * Issue 13: the widget's language — the visitor's browser language (default) or one the owner
 * forces — and greetings per language (the default greetings above otherwise). Owner and Admins
 * change it; Agents read it. The server validates the same (shared widgetLanguageSchema).
 */
export function WidgetLanguageCard() {
  const canWrite = useCan('settings.write');
  const [values, setValues] = useState<WidgetLanguageDto | null>(null);
  const [adding, setAdding] = useState('');
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [error, setError] = useState('');
  const [success, setSuccess] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    api
      .get('/api/vms/widget-language')
      .then((b) => live && setValues(unwrap<WidgetLanguageDto>(b)))
      .catch(() => live && setError('Failed to load data. Please try again.'));
    return () => {
      live = false;
    };
  }, []);

  const greetings = values?.greetings_by_language ?? {};
  const setGreeting = (code: string, field: 'initial_greeting' | 'follow_up_greeting', text: string) =>
    setValues((v) => v && { ...v, greetings_by_language: { ...v.greetings_by_language, [code]: { ...{ initial_greeting: '', follow_up_greeting: '' }, ...v.greetings_by_language[code], [field]: text } } });
  const remove = (code: string) =>
    setValues((v) => {
      if (!v) return v;
      const { [code]: _gone, ...rest } = v.greetings_by_language;
      return { ...v, greetings_by_language: rest };
    });

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (!values) return;
    setBusy(true);
    setError('');
    setSuccess('');
    setErrors({});
    try {
      setValues(unwrap<WidgetLanguageDto>(await api.put('/api/vms/widget-language', values)));
      setSuccess('Widget language updated successfully');
    } catch (err) {
      if (err instanceof ApiError && err.errors) setErrors(err.errors as Record<string, string[]>);
      setError(err instanceof ApiError && err.message ? err.message : 'Failed to save settings. Please try again.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="widget-language-title">
      <div className="card-header">
        <div>
          <h2 id="widget-language-title" className="card-title">Widget Language</h2>
          <p className="card-sub">The widget follows each visitor's browser language, or the one you choose. Greetings can be written per language.</p>
        </div>
      </div>
      <div className="card-body">
        {success && <Banner kind="success" onDismiss={() => setSuccess('')}>{success}</Banner>}
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        {!values ? (
          !error && <div className="loading-block"><Spinner /><p>Loading...</p></div>
        ) : (
          <form onSubmit={onSubmit} noValidate aria-label="Widget language">
            {!canWrite && <ReadOnlyNotice />}
            <fieldset className="plain-fieldset" disabled={!canWrite}>
              <label className="field">
                <span className="field-label">Language</span>
                <select className="input" value={values.language} onChange={(e) => setValues({ ...values, language: e.target.value })}>
                  <option value="">Visitor's browser language</option>
                  {WIDGET_LANGUAGES.map((c) => (
                    <option key={c} value={c}>{languageName(c)}</option>
                  ))}
                </select>
                {errors.language && <span className="field-error" role="alert">{errors.language[0]}</span>}
              </label>
              {Object.keys(greetings).map((code) => (
                <fieldset key={code} className="plain-fieldset" aria-label={`Greetings in ${languageName(code)}`}>
                  <legend className="field-label">Greetings in {languageName(code)}</legend>
                  <TextAreaField label={`Initial greeting (${code})`} rows={2} dir="auto" lang={code} value={greetings[code]?.initial_greeting ?? ''} error={errors[`greetings_by_language.${code}.initial_greeting`]?.[0]} onChange={(e) => setGreeting(code, 'initial_greeting', e.target.value)} />
                  <TextAreaField label={`Follow-up greeting (${code}, optional)`} rows={2} dir="auto" lang={code} value={greetings[code]?.follow_up_greeting ?? ''} error={errors[`greetings_by_language.${code}.follow_up_greeting`]?.[0]} onChange={(e) => setGreeting(code, 'follow_up_greeting', e.target.value)} />
                  {canWrite && <Button type="button" variant="secondary" size="sm" onClick={() => remove(code)}>Remove {code}</Button>}
                </fieldset>
              ))}
              {errors.greetings_by_language && <p className="field-error" role="alert">{errors.greetings_by_language[0]}</p>}
              {canWrite && (
                <div className="form-row">
                  <label className="field">
                    <span className="field-label">Add greetings for</span>
                    <select className="input" value={adding} onChange={(e) => setAdding(e.target.value)}>
                      <option value="">Choose a language</option>
                      {WIDGET_LANGUAGES.filter((c) => c !== 'en' && !greetings[c]).map((c) => (
                        <option key={c} value={c}>{languageName(c)}</option>
                      ))}
                    </select>
                  </label>
                  <Button type="button" variant="secondary" size="sm" disabled={!adding} onClick={() => { setGreeting(adding, 'initial_greeting', ''); setAdding(''); }}>Add language</Button>
                </div>
              )}
            </fieldset>
            {canWrite && (
              <div className="form-actions">
                <Button type="submit" busy={busy}>{busy ? 'Saving...' : 'Save Language'}</Button>
              </div>
            )}
          </form>
        )}
      </div>
    </section>
  );
}
