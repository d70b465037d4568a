import { z } from 'zod';
import { TIME_ZONE_INVALID, isTimeZone } from './lifecycle.js';

/**
 * Issue 17: the account's business hours, in its time zone (GET/PUT /api/vms/business-hours).
 * `hours: null` is "always open" (the default); otherwise each weekday is one opening and closing
 * time ("09:00" to "17:30"; "24:00" closes at midnight) or null for a day closed all day. Outside
 * them the assistant's hand-over tells the visitor when the team is back.
 */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const BUSINESS_HOURS_TIME_INVALID = 'Times must be written HH:MM, from 00:00 to 24:00';
export const BUSINESS_HOURS_CLOSE_BEFORE_OPEN = 'The closing time must be after the opening time';
export const BUSINESS_HOURS_NO_DAY = 'Open on at least one day, or choose "Always open"';

const TIME = /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/;

/** "HH:MM" as minutes after midnight (24:00 is 1440). */
export const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

const time = z.string({ error: BUSINESS_HOURS_TIME_INVALID }).regex(TIME, { error: BUSINESS_HOURS_TIME_INVALID });

export const dayHoursSchema = z
  .object({ open: time, close: time })
  .refine((d) => minutesOf(d.close) > minutesOf(d.open), { path: ['close'], error: BUSINESS_HOURS_CLOSE_BEFORE_OPEN });
export type DayHours = z.output<typeof dayHoursSchema>;

/** A day missing from the object is closed, like null. */
export const weekHoursSchema = z
  .object(Object.fromEntries(WEEKDAYS.map((d) => [d, dayHoursSchema.nullable().optional()])) as Record<Weekday, z.ZodOptional<z.ZodNullable<typeof dayHoursSchema>>>, {
    error: BUSINESS_HOURS_NO_DAY,
  })
  .refine((w) => WEEKDAYS.some((d) => w[d]), { error: BUSINESS_HOURS_NO_DAY });
export type WeekHours = Partial<Record<Weekday, DayHours | null>>;

export const businessHoursSchema = z.object({
  /** The zone the hours are in (the account's time zone, as in the conversation settings); unchanged when left out. */
  time_zone: z.string({ error: TIME_ZONE_INVALID }).max(64, { error: TIME_ZONE_INVALID }).refine(isTimeZone, { error: TIME_ZONE_INVALID }).optional(),
  /** null: always open. */
  hours: weekHoursSchema.nullable(),
});
export type BusinessHoursInput = z.input<typeof businessHoursSchema>;
