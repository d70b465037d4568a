import type { WeekHours } from '@parley/shared';
import { describe, expect, it } from 'vitest';
import { isOpenAt, nextOpening, readWeek, toStored, upcomingDates, whenInWords } from './businessHours.js';

// Issue 17: business hours are wall-clock times of the account's zone; outside them the hand-over
// says when the team is back.
const weekdays: WeekHours = { mon: { open: '09:00', close: '17:30' }, tue: { open: '09:00', close: '17:30' }, wed: { open: '09:00', close: '17:30' }, thu: { open: '09:00', close: '17:30' }, fri: { open: '09:00', close: '17:00' } };
const at = (iso: string) => new Date(iso);
const next = (hours: WeekHours | null, zone: string, iso: string, closed: string[] = []) => nextOpening(hours, zone, at(iso), closed)?.toISOString() ?? null;

describe('business hours', () => {
  it('no hours is always open', () => {
    expect(isOpenAt(null, 'Europe/Berlin', at('2026-11-29T03:00:00Z'))).toBe(true);
    expect(nextOpening(null, 'Europe/Berlin', at('2026-11-29T03:00:00Z'))).toBeNull();
  });

  it("is open from the opening minute up to (not including) the closing one, in the account's zone", () => {
    // Tuesday 24 November 2026; Berlin is UTC+1 in winter.
    expect(isOpenAt(weekdays, 'Europe/Berlin', at('2026-11-24T07:59:00Z'))).toBe(false); // 08:59
    expect(isOpenAt(weekdays, 'Europe/Berlin', at('2026-11-24T08:00:00Z'))).toBe(true); // 09:00
    expect(isOpenAt(weekdays, 'Europe/Berlin', at('2026-11-24T16:29:00Z'))).toBe(true); // 17:29
    expect(isOpenAt(weekdays, 'Europe/Berlin', at('2026-11-24T16:30:00Z'))).toBe(false); // 17:30
    // The same instant is 03:30 in New York: closed there.
    expect(isOpenAt(weekdays, 'America/New_York', at('2026-11-24T08:30:00Z'))).toBe(false);
    expect(nextOpening(weekdays, 'Europe/Berlin', at('2026-11-24T08:00:00Z'))).toBeNull();
  });

  it('opens next later today, tomorrow, or after a closed weekend', () => {
    expect(next(weekdays, 'Europe/Berlin', '2026-11-24T06:00:00Z')).toBe('2026-11-24T08:00:00.000Z'); // Tue 07:00 -> today 09:00
    expect(next(weekdays, 'Europe/Berlin', '2026-11-24T18:00:00Z')).toBe('2026-11-25T08:00:00.000Z'); // Tue 19:00 -> Wed 09:00
    expect(next(weekdays, 'Europe/Berlin', '2026-11-27T16:15:00Z')).toBe('2026-11-30T08:00:00.000Z'); // Fri 17:15 -> Mon 09:00
    expect(next(weekdays, 'Europe/Berlin', '2026-11-29T12:00:00Z')).toBe('2026-11-30T08:00:00.000Z'); // Sunday
    // Open one day a week, already closed today: the same weekday next week.
    expect(next({ wed: { open: '10:00', close: '12:00' } }, 'UTC', '2026-11-25T13:00:00Z')).toBe('2026-12-02T10:00:00.000Z');
    // Closing at 24:00 and opening at 00:00 the next day is open through midnight.
    const nights: WeekHours = { mon: { open: '18:00', close: '24:00' }, tue: { open: '00:00', close: '06:00' } };
    expect(isOpenAt(nights, 'UTC', at('2026-11-23T23:59:00Z'))).toBe(true);
    expect(isOpenAt(nights, 'UTC', at('2026-11-24T00:00:00Z'))).toBe(true);
    expect(next(nights, 'UTC', '2026-11-24T06:00:00Z')).toBe('2026-11-30T18:00:00.000Z');
  });

  it('keeps the local opening time across a daylight-saving change, both ways', () => {
    // Europe/Berlin springs forward on Sunday 29 March 2026: Monday 09:00 is 07:00 UTC, not 08:00.
    expect(next(weekdays, 'Europe/Berlin', '2026-03-27T17:00:00Z')).toBe('2026-03-30T07:00:00.000Z');
    // New York falls back on Sunday 1 November 2026: Monday 09:00 is 14:00 UTC, not 13:00.
    expect(next(weekdays, 'America/New_York', '2026-10-30T22:00:00Z')).toBe('2026-11-02T14:00:00.000Z');
    // The Saturday evening before the change, Sunday's 10:00 opening is already in the new offset.
    expect(next({ sun: { open: '10:00', close: '14:00' } }, 'Europe/Berlin', '2026-03-28T20:00:00Z')).toBe('2026-03-29T08:00:00.000Z');
  });

  it('an opening inside the spring-forward gap opens when the clock passes it; in the repeated hour, the first time', () => {
    // 29 March 2026 in Berlin: 02:00 jumps to 03:00, so 02:30 does not exist; the clock passes it at 03:00 (01:00 UTC).
    const early: WeekHours = { sun: { open: '02:30', close: '06:00' } };
    expect(next(early, 'Europe/Berlin', '2026-03-28T20:00:00Z')).toBe('2026-03-29T01:00:00.000Z');
    expect(isOpenAt(early, 'Europe/Berlin', at('2026-03-29T01:00:00Z'))).toBe(true); // 03:00 CEST
    expect(isOpenAt(early, 'Europe/Berlin', at('2026-03-29T00:59:00Z'))).toBe(false); // 01:59 CET
    // 25 October 2026: 02:30 comes twice (00:30 and 01:30 UTC); the team opens at the first.
    expect(next({ sun: { open: '02:30', close: '06:00' } }, 'Europe/Berlin', '2026-10-24T20:00:00Z')).toBe('2026-10-25T00:30:00.000Z');
  });

  it('an unknown zone reads as UTC', () => {
    expect(next(weekdays, 'Mars/Olympus', '2026-11-24T06:00:00Z')).toBe('2026-11-24T09:00:00.000Z');
  });

  it('says when in words, as read in a zone', () => {
    const now = at('2026-11-27T17:00:00Z'); // Friday 18:00 in Berlin
    expect(whenInWords(at('2026-11-27T19:00:00Z'), now, 'Europe/Berlin')).toBe('today at 20:00');
    expect(whenInWords(at('2026-11-28T08:00:00Z'), now, 'Europe/Berlin')).toBe('tomorrow at 09:00');
    expect(whenInWords(at('2026-11-30T08:00:00Z'), now, 'Europe/Berlin')).toBe('Monday at 09:00');
    // In Tokyo that Monday 09:00 Berlin is Monday 17:00, and "now" is already Saturday 02:00.
    expect(whenInWords(at('2026-11-30T08:00:00Z'), now, 'Asia/Tokyo')).toBe('Monday at 17:00');
    expect(whenInWords(at('2026-12-04T08:00:00Z'), now, 'Europe/Berlin')).toBe('Friday 4 December at 09:00');
  });

  describe('several openings a day (a lunch break)', () => {
    const lunch: WeekHours = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [{ open: '09:00', close: '12:00' }, { open: '13:00', close: '17:30' }]]));

    it('is closed over lunch and opens again after it, the same day', () => {
      // Tuesday 24 November 2026 in Berlin (UTC+1).
      expect(isOpenAt(lunch, 'Europe/Berlin', at('2026-11-24T10:59:00Z'))).toBe(true); // 11:59
      expect(isOpenAt(lunch, 'Europe/Berlin', at('2026-11-24T11:00:00Z'))).toBe(false); // 12:00
      expect(next(lunch, 'Europe/Berlin', '2026-11-24T11:30:00Z')).toBe('2026-11-24T12:00:00.000Z'); // 12:30 -> 13:00
      expect(isOpenAt(lunch, 'Europe/Berlin', at('2026-11-24T12:00:00Z'))).toBe(true); // 13:00
      expect(next(lunch, 'Europe/Berlin', '2026-11-24T06:00:00Z')).toBe('2026-11-24T08:00:00.000Z'); // 07:00 -> 09:00, not 13:00
      expect(next(lunch, 'Europe/Berlin', '2026-11-24T16:30:00Z')).toBe('2026-11-25T08:00:00.000Z'); // 17:30 -> tomorrow 09:00
    });

    it('reads the openings in any order', () => {
      const unsorted: WeekHours = { wed: [{ open: '14:00', close: '18:00' }, { open: '08:00', close: '10:00' }] };
      expect(next(unsorted, 'UTC', '2026-11-25T07:00:00Z')).toBe('2026-11-25T08:00:00.000Z');
      expect(next(unsorted, 'UTC', '2026-11-25T11:00:00Z')).toBe('2026-11-25T14:00:00.000Z');
    });

    it('are stored so a release reading one opening a day still reads the day (first opening to last closing)', () => {
      const week = readWeek(lunch)!;
      const stored = toStored(week)!;
      expect(stored.mon).toEqual({ open: '09:00', close: '17:30', openings: week.mon });
      expect(stored.sat).toBeNull();
      expect(toStored(readWeek({ tue: { open: '10:00', close: '16:00' } }))!.tue).toEqual({ open: '10:00', close: '16:00' });
      // Read back, the stored shape is the same hours.
      expect(readWeek(stored)).toEqual(week);
      expect(next(stored, 'Europe/Berlin', '2026-11-24T11:30:00Z')).toBe('2026-11-24T12:00:00.000Z');
    });
  });

  describe('closed dates (holidays)', () => {
    it('closes the whole day, whatever the hours say, and the next opening skips it', () => {
      // Thursday 24 December 2026 closed: on Wednesday evening the team is back Friday.
      expect(isOpenAt(weekdays, 'Europe/Berlin', at('2026-12-24T09:00:00Z'), ['2026-12-24'])).toBe(false);
      expect(isOpenAt(weekdays, 'Europe/Berlin', at('2026-12-24T09:00:00Z'))).toBe(true);
      expect(next(weekdays, 'Europe/Berlin', '2026-12-23T18:00:00Z', ['2026-12-24'])).toBe('2026-12-25T08:00:00.000Z');
    });

    it('a holiday followed by a weekend opens on the Monday after', () => {
      // Friday 25 December 2026 closed; Saturday and Sunday have no hours: back Monday 28th, 09:00 Berlin.
      expect(next(weekdays, 'Europe/Berlin', '2026-12-24T17:00:00Z', ['2026-12-25'])).toBe('2026-12-28T08:00:00.000Z');
      // And a run of holidays through the new year (Monday 28 December to Friday 1 January): back Monday 4 January.
      const run = ['2026-12-25', '2026-12-28', '2026-12-29', '2026-12-30', '2026-12-31', '2027-01-01'];
      expect(next(weekdays, 'Europe/Berlin', '2026-12-24T17:00:00Z', run)).toBe('2027-01-04T08:00:00.000Z');
    });

    it("is a date of the account's zone, not UTC's", () => {
      // 23:30 UTC on 24 December is already the 25th in Tokyo (08:30): closed there, and back on the 28th (Monday) at 09:00 Tokyo.
      const tokyo: WeekHours = { mon: { open: '09:00', close: '17:00' }, fri: { open: '08:00', close: '17:00' } };
      expect(isOpenAt(tokyo, 'Asia/Tokyo', at('2026-12-24T23:30:00Z'), ['2026-12-25'])).toBe(false);
      expect(isOpenAt(tokyo, 'Asia/Tokyo', at('2026-12-24T23:30:00Z'))).toBe(true);
      expect(next(tokyo, 'Asia/Tokyo', '2026-12-24T23:30:00Z', ['2026-12-25'])).toBe('2026-12-28T00:00:00.000Z');
    });

    it('keeps the local opening time when a holiday pushes the opening across a daylight-saving change', () => {
      // New York: Friday 30 October 2026 closed, clocks fall back on Sunday 1 November: Monday 09:00 is 14:00 UTC (UTC-5), not 13:00.
      expect(next(weekdays, 'America/New_York', '2026-10-29T22:00:00Z', ['2026-10-30'])).toBe('2026-11-02T14:00:00.000Z');
      // Berlin: Friday 27 March 2026 closed, clocks spring forward on Sunday 29 March: Monday 09:00 is 07:00 UTC.
      expect(next(weekdays, 'Europe/Berlin', '2026-03-26T17:00:00Z', ['2026-03-27'])).toBe('2026-03-30T07:00:00.000Z');
    });

    it('"always open" is closed on a closed date and back at the next midnight that is not one', () => {
      expect(isOpenAt(null, 'Europe/Berlin', at('2026-12-25T12:00:00Z'), ['2026-12-25', '2026-12-26'])).toBe(false);
      expect(isOpenAt(null, 'Europe/Berlin', at('2026-12-24T12:00:00Z'), ['2026-12-25', '2026-12-26'])).toBe(true);
      // Midnight at the end of Boxing Day in Berlin is 23:00 UTC on the 26th.
      expect(next(null, 'Europe/Berlin', '2026-12-25T12:00:00Z', ['2026-12-25', '2026-12-26'])).toBe('2026-12-26T23:00:00.000Z');
    });

    it('dates before today in the zone are past', () => {
      const dates = ['2026-11-23', '2026-11-24', '2026-12-25'];
      // 23:30 UTC on the 23rd is already the 24th in Berlin.
      expect(upcomingDates(dates, 'Europe/Berlin', at('2026-11-23T23:30:00Z'))).toEqual(['2026-11-24', '2026-12-25']);
      expect(upcomingDates(dates, 'America/New_York', at('2026-11-23T23:30:00Z'))).toEqual(dates);
    });
  });
});
