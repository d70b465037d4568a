import { type BusinessHoursDto, MAX_CLOSED_DATES, MAX_OPENINGS_PER_DAY, WEEKDAYS, type Weekday, businessHoursSchema } from '@parley/shared';
import { type FormEvent, useCallback, useEffect, useMemo, useState } from 'react';
import { api, unwrap } from '../../lib/api';
import { type FormErrors, useSubmit } from '../../lib/validate';
import { useCan } from '../../stores/auth';
import { Banner, Button, Spinner } from '../ui';
import { ReadOnlyNotice } from './ReadOnlyNotice';

const DAY_NAMES: Record<Weekday, string> = { mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday' };
type Span = { from: string; to: string };
type Day = { open: boolean; spans: Span[] };
type Week = Record<Weekday, Day>;
const NINE_TO_FIVE: Span = { from: '09:00', to: '17:00' };

/** The form's week from the server's hours (a closed day keeps 09:00-17:00 ready to switch on). */
const toWeek = (hours: BusinessHoursDto['hours']): Week =>
  Object.fromEntries(
    WEEKDAYS.map((d) => {
      const list = hours?.[d] ?? [];
      return [d, list.length ? { open: true, spans: list.map((o) => ({ from: o.open, to: o.close })) } : { open: hours === null && !['sat', 'sun'].includes(d), spans: [NINE_TO_FIVE] }];
    }),
  ) as Week;
const toHours = (week: Week) => Object.fromEntries(WEEKDAYS.map((d) => [d, week[d].open ? week[d].spans.map((s) => ({ open: s.from, close: s.to })) : []]));

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

/** "Friday 25 December 2026" for a "YYYY-MM-DD" closed date. */
function dateInWords(date: string): string {
  const d = new Date(`${date}T12:00:00Z`);
  if (Number.isNaN(d.getTime())) return date;
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).formatToParts(d);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('weekday')} ${part('day')} ${part('month')} ${part('year')}`;
}

const inline = { width: 'auto', display: 'inline-block' } as const;

/**
 * Issue 17: the account's business hours in its time zone — always open (the default) or openings
 * per weekday (several a day for a break) — and closed dates (holidays). Outside them the widget's
 * away text and the assistant's hand-over tell visitors when the team is back. Owner and Admins
 * change them; Agents read them. The form and the server validate with the same schema
 * (shared businessHoursSchema); errors show beside the opening or date they are about.
 */
export function BusinessHoursCard() {
  const canWrite = useCan('settings.write');
  const [saved, setSaved] = useState<BusinessHoursDto | null>(null);
  const [alwaysOpen, setAlwaysOpen] = useState(true);
  const [zone, setZone] = useState('UTC');
  const [week, setWeek] = useState<Week>(() => toWeek(null));
  const [closedDates, setClosedDates] = useState<string[]>([]);
  const [newDate, setNewDate] = useState('');
  const [errors, setErrors] = useState<FormErrors>({});
  const [loadError, setLoadError] = useState('');
  const [success, setSuccess] = useState('');
  const { busy, error, setError, submit } = useSubmit(setErrors, { paths: true });

  const show = useCallback((data: BusinessHoursDto) => {
    setSaved(data);
    setAlwaysOpen(data.hours === null);
    setZone(data.time_zone);
    setWeek(toWeek(data.hours));
    setClosedDates(data.closed_dates);
  }, []);

  useEffect(() => {
    let live = true;
    api
      .get('/api/vms/business-hours')
      .then((b) => live && show(unwrap<BusinessHoursDto>(b)))
      .catch(() => live && setLoadError('Failed to load data. Please try again.'));
    return () => {
      live = false;
    };
  }, [show]);

  const zoneList = useMemo(() => zones(zone), [zone]);
  /** Editing a field clears its error (and the error of the day or list it is in). */
  const clear = (...keys: string[]) => setErrors((e) => (keys.some((k) => e[k]) ? Object.fromEntries(Object.entries(e).filter(([k]) => !keys.includes(k))) : e));
  const setDay = (d: Weekday, patch: Partial<Day>) => setWeek((w) => ({ ...w, [d]: { ...w[d], ...patch } }));
  const setSpan = (d: Weekday, i: number, patch: Partial<Span>) => {
    setDay(d, { spans: week[d].spans.map((s, j) => (j === i ? { ...s, ...patch } : s)) });
    clear(`hours.${d}.${i}.${patch.from !== undefined ? 'open' : 'close'}`, `hours.${d}`);
  };
  const addSpan = (d: Weekday) => {
    const last = week[d].spans.at(-1);
    // The next opening starts an hour after the last one closes (13:00 after a 12:00 close).
    const start = last ? Math.min(Number(last.to.slice(0, 2)) + 1, 23) : 9;
    const hh = (n: number) => String(n).padStart(2, '0');
    setDay(d, { spans: [...week[d].spans, { from: `${hh(start)}:00`, to: `${hh(Math.min(start + 4, 23))}:${start + 4 > 23 ? '59' : '00'}` }] });
  };
  const removeSpan = (d: Weekday, i: number) => {
    setDay(d, { spans: week[d].spans.filter((_, j) => j !== i) });
    setErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !k.startsWith(`hours.${d}`))));
  };
  const addDate = () => {
    if (!newDate) return;
    setClosedDates((list) => [...new Set([...list, newDate])].sort());
    setNewDate('');
    clear('closed_dates');
  };
  const removeDate = (date: string) => {
    setClosedDates((list) => list.filter((x) => x !== date));
    setErrors((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !k.startsWith('closed_dates'))));
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setSuccess('');
    const values = { time_zone: zone, hours: alwaysOpen ? null : toHours(week), closed_dates: closedDates };
    // The form's own values are sent (sorting is the server's), so its errors name the rows shown.
    const sent = await submit(businessHoursSchema, values, async () => show(unwrap<BusinessHoursDto>(await api.put('/api/vms/business-hours', values))), 'Failed to save settings. Please try again.');
    if (sent) setSuccess('Business hours saved');
  };

  const fieldError = (key: string) => errors[key] && <span className="field-error" role="alert">{errors[key]}</span>;

  return (
    <section className="card" aria-labelledby="business-hours-title">
      <div className="card-header">
        <div>
          <h2 id="business-hours-title" className="card-title">Business Hours</h2>
          <p className="card-sub">When your team answers. Outside these hours, visitors are told when you are back, in their own time.</p>
        </div>
      </div>
      <div className="card-body">
        {success && <Banner kind="success" onDismiss={() => setSuccess('')}>{success}</Banner>}
        {(error || loadError) && <Banner kind="error" onDismiss={() => {
              setError('');
              setLoadError('');
            }}>{error || loadError}</Banner>}
        {!saved ? (
          !loadError && <div className="loading-block"><Spinner /><p>Loading...</p></div>
        ) : (
          <form onSubmit={onSubmit} noValidate aria-label="Business hours">
            {!canWrite && <ReadOnlyNotice />}
            <p role="status" className="card-sub">
              {saved.open_now ? 'Open now.' : saved.next_open_at ? `Closed now; opens ${when(saved.next_open_at, saved.time_zone)} (${saved.time_zone}).` : 'Closed now.'}
            </p>
            <fieldset className="plain-fieldset" disabled={!canWrite}>
              <label className="field">
                <span className="field-label">Time zone</span>
                <select className="input" value={zone} onChange={(e) => {
                  setZone(e.target.value);
                  clear('time_zone');
                }} aria-invalid={errors.time_zone ? true : undefined}>
                  {zoneList.map((z) => (
                    <option key={z} value={z}>{z}</option>
                  ))}
                </select>
                {fieldError('time_zone')}
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
                    {WEEKDAYS.map((d) => (
                      <tr key={d}>
                        <th scope="row" style={{ textAlign: 'start', fontWeight: 500, paddingInlineEnd: 12, verticalAlign: 'top' }}>
                          <label>
                            <input type="checkbox" checked={week[d].open} onChange={(e) => {
                              setDay(d, { open: e.target.checked });
                              clear('hours');
                            }} /> {DAY_NAMES[d]}
                          </label>
                        </th>
                        <td>
                          {week[d].open ? (
                            <>
                              {week[d].spans.map((s, i) => {
                                const n = week[d].spans.length > 1 ? ` (${i + 1})` : '';
                                return (
                                  // biome-ignore lint/suspicious/noArrayIndexKey: an opening has no id; its place is what the errors name
                                  <div key={i} style={{ marginBottom: 4 }}>
                                    <input className="input" style={inline} type="time" aria-label={`${DAY_NAMES[d]} opens${n}`} value={s.from} onChange={(e) => setSpan(d, i, { from: e.target.value })} />
                                    {' to '}
                                    <input className="input" style={inline} type="time" aria-label={`${DAY_NAMES[d]} closes${n}`} value={s.to === '24:00' ? '23:59' : s.to} onChange={(e) => setSpan(d, i, { to: e.target.value })} />
                                    {week[d].spans.length > 1 && canWrite && (
                                      <>
                                        {' '}
                                        <Button variant="ghost" size="sm" onClick={() => removeSpan(d, i)} aria-label={`Remove ${DAY_NAMES[d]} opening ${i + 1}`}>Remove</Button>
                                      </>
                                    )}
                                    {fieldError(`hours.${d}.${i}.open`) || fieldError(`hours.${d}.${i}.close`) || fieldError(`hours.${d}.${i}`)}
                                  </div>
                                );
                              })}
                              {canWrite && week[d].spans.length < MAX_OPENINGS_PER_DAY && (
                                <Button variant="ghost" size="sm" onClick={() => addSpan(d)} aria-label={`Add opening on ${DAY_NAMES[d]}`}>Add opening</Button>
                              )}
                            </>
                          ) : (
                            <span className="muted">Closed</span>
                          )}
                          {fieldError(`hours.${d}`)}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              {errors.hours && <p className="field-error" role="alert">{errors.hours}</p>}
              <fieldset className="plain-fieldset">
                <legend className="field-label">Closed dates</legend>
                <p className="card-sub">Holidays and other days the team is closed all day, in the time zone above. Past dates are removed when you save.</p>
                {closedDates.length === 0 ? (
                  <p className="muted">No closed dates.</p>
                ) : (
                  <ul aria-label="Closed dates" style={{ listStyle: 'none', padding: 0, margin: '4px 0' }}>
                    {closedDates.map((date, i) => (
                      <li key={date}>
                        {dateInWords(date)}
                        {canWrite && (
                          <>
                            {' '}
                            <Button variant="ghost" size="sm" onClick={() => removeDate(date)} aria-label={`Remove ${dateInWords(date)}`}>Remove</Button>
                          </>
                        )}
                        {fieldError(`closed_dates.${i}`)}
                      </li>
                    ))}
                  </ul>
                )}
                {canWrite && closedDates.length < MAX_CLOSED_DATES && (
                  <div>
                    <input className="input" style={inline} type="date" aria-label="Closed date" value={newDate} onChange={(e) => setNewDate(e.target.value)} />{' '}
                    <Button variant="ghost" size="sm" onClick={addDate} disabled={!newDate}>Add closed date</Button>
                  </div>
                )}
                {fieldError('closed_dates')}
              </fieldset>
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
