import { type BusinessHoursDto, WEEKDAYS, type Weekday } from '@parley/shared';
import { type FormEvent, useCallback, useEffect, useMemo, useState } from 'react';
import { ApiError, api, unwrap } from '../../lib/api';
import { useCan } from '../../stores/auth';
import { Banner, Button, Spinner } from '../ui';
import { ReadOnlyNotice } from './ReadOnlyNotice';

const DAY_NAMES: Record<Weekday, string> = { mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday' };
type Day = { open: boolean; from: string; to: string };
type Week = Record<Weekday, Day>;

/** The form's week from the server's hours (a closed day keeps 09:00-17:00 ready to switch on). */
const toWeek = (hours: BusinessHoursDto['hours']): Week =>
  Object.fromEntries(WEEKDAYS.map((d) => [d, hours?.[d] ? { open: true, from: hours[d]!.open, to: hours[d]!.close } : { open: hours === null && !['sat', 'sun'].includes(d), from: '09:00', to: '17:00' }])) as Week;
const toHours = (week: Week) => Object.fromEntries(WEEKDAYS.map((d) => [d, week[d].open ? { open: week[d].from, close: week[d].to } : null]));

/** The IANA zones the browser knows, with the account's own first when it is missing. */
function zones(current: string): string[] {
  let all: string[] = [];
  try {
    all = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  } catch {
    all = [];
  }
  if (!all.includes('UTC')) all = ['UTC', ...all];
  return all.includes(current) ? all : [current, ...all];
}

/** "Monday 09:00" in the account's zone. */
function when(iso: string, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'long', hour: '2-digit', minute: '2-digit' }).format(new Date(iso));
  } catch {
    return new Date(iso).toUTCString();
  }
}

/**
 * Issue 17: the account's business hours in its time zone — always open (the default) or one
 * opening per weekday. Outside them the assistant's hand-over tells visitors when the team is
 * back. Owner and Admins change them; Agents read them. The server validates the same
 * (shared businessHoursSchema).
 */
export function BusinessHoursCard() {
  const canWrite = useCan('settings.write');
  const [saved, setSaved] = useState<BusinessHoursDto | null>(null);
  const [alwaysOpen, setAlwaysOpen] = useState(true);
  const [zone, setZone] = useState('UTC');
  const [week, setWeek] = useState<Week>(() => toWeek(null));
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [error, setError] = useState('');
  const [success, setSuccess] = useState('');
  const [busy, setBusy] = useState(false);

  const show = useCallback((data: BusinessHoursDto) => {
    setSaved(data);
    setAlwaysOpen(data.hours === null);
    setZone(data.time_zone);
    setWeek(toWeek(data.hours));
  }, []);

  useEffect(() => {
    let live = true;
    api
      .get('/api/vms/business-hours')
      .then((b) => live && show(unwrap<BusinessHoursDto>(b)))
      .catch(() => live && setError('Failed to load data. Please try again.'));
    return () => {
      live = false;
    };
  }, [show]);

  const zoneList = useMemo(() => zones(zone), [zone]);
  const setDay = (d: Weekday, patch: Partial<Day>) => setWeek((w) => ({ ...w, [d]: { ...w[d], ...patch } }));

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    setSuccess('');
    setErrors({});
    try {
      show(unwrap<BusinessHoursDto>(await api.put('/api/vms/business-hours', { time_zone: zone, hours: alwaysOpen ? null : toHours(week) })));
      setSuccess('Business hours saved');
    } catch (err) {
      if (err instanceof ApiError && err.errors) setErrors(err.errors as Record<string, string[]>);
      setError(err instanceof ApiError && err.message ? err.message : 'Failed to save settings. Please try again.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="business-hours-title">
      <div className="card-header">
        <div>
          <h2 id="business-hours-title" className="card-title">Business Hours</h2>
          <p className="card-sub">When your team answers. Outside these hours, a visitor who asks the assistant for a person is told when you are back, in their own time.</p>
        </div>
      </div>
      <div className="card-body">
        {success && <Banner kind="success" onDismiss={() => setSuccess('')}>{success}</Banner>}
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        {!saved ? (
          !error && <div className="loading-block"><Spinner /><p>Loading...</p></div>
        ) : (
          <form onSubmit={onSubmit} noValidate aria-label="Business hours">
            {!canWrite && <ReadOnlyNotice />}
            <p role="status" className="card-sub">
              {saved.open_now ? 'Open now.' : saved.next_open_at ? `Closed now; opens ${when(saved.next_open_at, saved.time_zone)} (${saved.time_zone}).` : 'Closed now.'}
            </p>
            <fieldset className="plain-fieldset" disabled={!canWrite}>
              <label className="field">
                <span className="field-label">Time zone</span>
                <select className="input" value={zone} onChange={(e) => setZone(e.target.value)} aria-invalid={errors.time_zone ? true : undefined}>
                  {zoneList.map((z) => (
                    <option key={z} value={z}>{z}</option>
                  ))}
                </select>
                {errors.time_zone && <span className="field-error" role="alert">{errors.time_zone[0]}</span>}
              </label>
              <fieldset className="plain-fieldset">
                <legend className="field-label">Hours</legend>
                <label className="radio-row" style={{ display: 'block', margin: '4px 0' }}>
                  <input type="radio" name="business-hours-mode" checked={alwaysOpen} onChange={() => setAlwaysOpen(true)} /> Always open
                </label>
                <label className="radio-row" style={{ display: 'block', margin: '4px 0' }}>
                  <input type="radio" name="business-hours-mode" checked={!alwaysOpen} onChange={() => setAlwaysOpen(false)} /> Set hours per day
                </label>
              </fieldset>
              {!alwaysOpen && (
                <table className="hours-table" style={{ borderSpacing: '0 6px' }}>
                  <tbody>
                    {WEEKDAYS.map((d) => {
                      const fieldError = errors[`hours.${d}.open`]?.[0] ?? errors[`hours.${d}.close`]?.[0];
                      return (
                        <tr key={d}>
                          <th scope="row" style={{ textAlign: 'start', fontWeight: 500, paddingInlineEnd: 12 }}>
                            <label>
                              <input type="checkbox" checked={week[d].open} onChange={(e) => setDay(d, { open: e.target.checked })} /> {DAY_NAMES[d]}
                            </label>
                          </th>
                          <td>
                            {week[d].open ? (
                              <>
                                <input className="input" style={{ width: 'auto', display: 'inline-block' }} type="time" aria-label={`${DAY_NAMES[d]} opens`} value={week[d].from} onChange={(e) => setDay(d, { from: e.target.value })} />
                                {' to '}
                                <input className="input" style={{ width: 'auto', display: 'inline-block' }} type="time" aria-label={`${DAY_NAMES[d]} closes`} value={week[d].to === '24:00' ? '23:59' : week[d].to} onChange={(e) => setDay(d, { to: e.target.value })} />
                              </>
                            ) : (
                              <span className="muted">Closed</span>
                            )}
                            {fieldError && <span className="field-error" role="alert">{fieldError}</span>}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              )}
              {errors.hours && <p className="field-error" role="alert">{errors.hours[0]}</p>}
            </fieldset>
            {canWrite && (
              <div className="form-actions">
                <Button type="submit" busy={busy}>{busy ? 'Saving...' : 'Save Business Hours'}</Button>
              </div>
            )}
          </form>
        )}
      </div>
    </section>
  );
}
