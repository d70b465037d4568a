import { z } from 'zod';
import { TIME_ZONE_INVALID, isTimeZone } from './lifecycle.js';

/**
 * Issue 17: the account's business hours, in its time zone (GET/PUT /api/vms/business-hours).
 * `hours: null` is "always open" (the default); otherwise each weekday is a list of openings
 * ("09:00" to "12:00" and "13:00" to "17:30": a lunch break; "24:00" closes at midnight), empty
 * (or null) for a day closed all day. A day written as one opening `{ open, close }` (how the
 * hours were stored before several a day) reads as a list of that one. `closed_dates` are whole
 * days the team is closed (holidays), in the same zone, whatever the hours say. Outside them the
 * widget and the assistant's hand-over tell the visitor when the team is back.
 */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** At most this many openings a day, and this many closed dates. */
export const MAX_OPENINGS_PER_DAY = 6;
export const MAX_CLOSED_DATES = 100;

export const BUSINESS_HOURS_TIME_INVALID = 'Times must be written HH:MM, from 00:00 to 24:00';
export const BUSINESS_HOURS_CLOSE_BEFORE_OPEN = 'The closing time must be after the opening time';
export const BUSINESS_HOURS_OVERLAP = 'Openings on the same day must not overlap';
export const BUSINESS_HOURS_TOO_MANY = `At most ${MAX_OPENINGS_PER_DAY} openings a day`;
export const BUSINESS_HOURS_NO_DAY = 'Open on at least one day, or choose "Always open"';
export const CLOSED_DATE_INVALID = 'Dates must be real days written YYYY-MM-DD';
export const CLOSED_DATES_TOO_MANY = `At most ${MAX_CLOSED_DATES} closed dates`;

const TIME = /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/;

/** "HH:MM" as minutes after midnight (24:00 is 1440). */
export const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

const time = z.string({ error: BUSINESS_HOURS_TIME_INVALID }).regex(TIME, { error: BUSINESS_HOURS_TIME_INVALID });
const validTime = (v: unknown): v is string => typeof v === 'string' && TIME.test(v);

export const openingSchema = z
  .object({ open: time, close: time }, { error: BUSINESS_HOURS_TIME_INVALID })
  // Only when both times are well formed (a bad time has its own message).
  .refine((d) => !validTime(d.open) || !validTime(d.close) || minutesOf(d.close) > minutesOf(d.open), { path: ['close'], error: BUSINESS_HOURS_CLOSE_BEFORE_OPEN });
export type Opening = z.output<typeof openingSchema>;
/** One opening (the shape before several a day). */
export type DayHours = Opening;

/**
 * A day's openings: a list, one opening alone (read as a list of it), or null (closed).
 * Two openings overlap when one opens before the other closes; one may open as the other closes.
 * The overlap is reported on the later opening's `open` (e.g. `hours.mon.1.open`).
 */
export const dayOpeningsSchema = z.preprocess(
  (v) => (v === null || v === undefined ? [] : Array.isArray(v) ? v : [v]),
  z
    .array(openingSchema)
    .max(MAX_OPENINGS_PER_DAY, { error: BUSINESS_HOURS_TOO_MANY })
    .superRefine((list, ctx) => {
      const spans = list.map((o, i) => ({ i, o })).filter(({ o }) => validTime(o?.open) && validTime(o?.close) && minutesOf(o.close) > minutesOf(o.open));
      spans.sort((a, b) => minutesOf(a.o.open) - minutesOf(b.o.open) || a.i - b.i);
      for (let k = 1; k < spans.length; k++) {
        const later = spans[k]!;
        if (spans.slice(0, k).some((s) => minutesOf(later.o.open) < minutesOf(s.o.close))) {
          ctx.addIssue({ code: 'custom', path: [later.i, 'open'], message: BUSINESS_HOURS_OVERLAP });
        }
      }
    })
    .transform((list) => [...list].sort((a, b) => minutesOf(a.open) - minutesOf(b.open))),
);

/** Every weekday's openings, in the day's order; a day missing from the input is closed. */
export type WeekOpenings = Record<Weekday, Opening[]>;
/** The hours as accepted (and as stored before several openings a day): per weekday a list, one opening, or null. */
export type WeekHours = Partial<Record<Weekday, Opening | Opening[] | null>>;

export const weekHoursSchema = z
  .object(Object.fromEntries(WEEKDAYS.map((d) => [d, dayOpeningsSchema.optional()])) as Record<Weekday, z.ZodOptional<typeof dayOpeningsSchema>>, {
    error: BUSINESS_HOURS_NO_DAY,
  })
  .transform((w): WeekOpenings => Object.fromEntries(WEEKDAYS.map((d) => [d, w[d] ?? []])) as WeekOpenings)
  .refine((w) => WEEKDAYS.some((d) => w[d].length > 0), { error: BUSINESS_HOURS_NO_DAY });

/** Whether "YYYY-MM-DD" names a day of the calendar (not 2026-02-30). */
export function isCalendarDate(v: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const [y, m, d] = v.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** Closed dates (holidays), sorted, each once. */
export const closedDatesSchema = z
  .array(z.string({ error: CLOSED_DATE_INVALID }).refine(isCalendarDate, { error: CLOSED_DATE_INVALID }), { error: CLOSED_DATE_INVALID })
  .max(MAX_CLOSED_DATES, { error: CLOSED_DATES_TOO_MANY })
  .transform((dates) => [...new Set(dates)].sort());

export const businessHoursSchema = z.object({
  /** The zone the hours are in (the account's time zone, as in the conversation settings); unchanged when left out. */
  time_zone: z.string({ error: TIME_ZONE_INVALID }).max(64, { error: TIME_ZONE_INVALID }).refine(isTimeZone, { error: TIME_ZONE_INVALID }).optional(),
  /** null: always open. */
  hours: weekHoursSchema.nullable(),
  /** Days closed all day, in the zone; unchanged when left out. Dates already past are dropped when saved. */
  closed_dates: closedDatesSchema.optional(),
});
export type BusinessHoursInput = z.input<typeof businessHoursSchema>;
