import { describe, expect, it } from 'vitest';
import {
  BUSINESS_HOURS_CLOSE_BEFORE_OPEN,
  BUSINESS_HOURS_NO_DAY,
  BUSINESS_HOURS_OVERLAP,
  BUSINESS_HOURS_TIME_INVALID,
  BUSINESS_HOURS_TOO_MANY,
  CLOSED_DATES_TOO_MANY,
  CLOSED_DATE_INVALID,
  businessHoursSchema,
} from './businessHours.js';

// Issue 17: the one schema the console's form and the API validate business hours with.
const issues = (body: unknown) => {
  const r = businessHoursSchema.safeParse(body);
  return r.success ? [] : r.error.issues.map((i) => [i.path.join('.'), i.message]);
};
const closed = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };

describe('business hours schema', () => {
  it('takes several openings a day, sorted, and every weekday comes out (closed days empty)', () => {
    const r = businessHoursSchema.parse({
      hours: {
        mon: [
          { open: '13:00', close: '17:30' },
          { open: '09:00', close: '12:00' },
        ],
        sat: null,
      },
    });
    expect(r.hours).toEqual({
      ...closed,
      mon: [
        { open: '09:00', close: '12:00' },
        { open: '13:00', close: '17:30' },
      ],
    });
  });

  it('reads a day written as one opening (the shape stored before) as a list of it', () => {
    expect(businessHoursSchema.parse({ hours: { fri: { open: '09:00', close: '24:00' } } }).hours).toEqual({ ...closed, fri: [{ open: '09:00', close: '24:00' }] });
  });

  it('an opening may start as the one before closes; one that starts before it closes overlaps, reported on the later one', () => {
    expect(
      issues({
        hours: {
          mon: [
            { open: '09:00', close: '12:00' },
            { open: '12:00', close: '17:00' },
          ],
        },
      }),
    ).toEqual([]);
    expect(
      issues({
        hours: {
          tue: [
            { open: '13:00', close: '17:00' },
            { open: '09:00', close: '13:30' },
          ],
        },
      }),
    ).toEqual([['hours.tue.0.open', BUSINESS_HOURS_OVERLAP]]);
    // One inside another, and the same opening twice.
    expect(
      issues({
        hours: {
          wed: [
            { open: '09:00', close: '17:00' },
            { open: '10:00', close: '11:00' },
            { open: '10:00', close: '11:00' },
          ],
        },
      }),
    ).toEqual([
      ['hours.wed.1.open', BUSINESS_HOURS_OVERLAP],
      ['hours.wed.2.open', BUSINESS_HOURS_OVERLAP],
    ]);
  });

  it('names the field of every bad time, and a closing not after its opening', () => {
    expect(
      issues({
        hours: {
          mon: [
            { open: '9:00', close: '12:00' },
            { open: '13:00', close: '12:30' },
          ],
          tue: { open: '09:00', close: '24:30' },
        },
      }),
    ).toEqual([
      ['hours.mon.0.open', BUSINESS_HOURS_TIME_INVALID],
      ['hours.mon.1.close', BUSINESS_HOURS_CLOSE_BEFORE_OPEN],
      ['hours.tue.0.close', BUSINESS_HOURS_TIME_INVALID],
    ]);
    expect(issues({ hours: { mon: 'all day' } })).toEqual([['hours.mon.0', BUSINESS_HOURS_TIME_INVALID]]);
  });

  it('at most six openings a day, and at least one open day', () => {
    const seven = Array.from({ length: 7 }, (_, i) => ({ open: `1${i}:00`, close: `1${i}:30` }));
    expect(issues({ hours: { mon: seven } })).toEqual([['hours.mon', BUSINESS_HOURS_TOO_MANY]]);
    expect(issues({ hours: { mon: [], sun: null } })).toEqual([['hours', BUSINESS_HOURS_NO_DAY]]);
    expect(issues({ hours: {} })).toEqual([['hours', BUSINESS_HOURS_NO_DAY]]);
  });

  it('closed dates: real days, each once and sorted, at most 100; left out, unchanged', () => {
    expect(businessHoursSchema.parse({ hours: null, closed_dates: ['2026-12-26', '2026-12-25', '2026-12-26'] }).closed_dates).toEqual(['2026-12-25', '2026-12-26']);
    expect(businessHoursSchema.parse({ hours: null }).closed_dates).toBeUndefined();
    expect(issues({ hours: null, closed_dates: ['2026-02-30', '25/12/2026', '2026-12-25'] })).toEqual([
      ['closed_dates.0', CLOSED_DATE_INVALID],
      ['closed_dates.1', CLOSED_DATE_INVALID],
    ]);
    expect(issues({ hours: null, closed_dates: '2026-12-25' })).toEqual([['closed_dates', CLOSED_DATE_INVALID]]);
    const many = Array.from({ length: 101 }, (_, i) => new Date(Date.UTC(2027, 0, 1 + i)).toISOString().slice(0, 10));
    expect(issues({ hours: null, closed_dates: many })).toEqual([['closed_dates', CLOSED_DATES_TOO_MANY]]);
    expect(issues({ hours: null, closed_dates: many.slice(1) })).toEqual([]);
  });
});
