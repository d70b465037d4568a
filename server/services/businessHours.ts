/**
 * Issue 17: an account's business hours (accounts.business_hours and accounts.closed_dates, in
 * accounts.time_zone) — whether the team is within them at an instant, and when they next open.
 * Hours are wall-clock times of the zone, so a daylight-saving change moves the instant, never the
 * local time: 09:00 stays 09:00. An opening that falls in a spring-forward gap (02:30 on the night
 * clocks jump 02:00 -> 03:00) opens at the first local minute after it (03:00), the moment the
 * wall clock passes 02:30. A closed date (a holiday) is closed all day, whatever the hours say,
 * "always open" included.
 */
import { type Opening, WEEKDAYS, type WeekHours, type WeekOpenings, type Weekday, minutesOf } from '@parley/shared';
import { eq } from 'drizzle-orm';
import { DateTime } from 'luxon';
import type { Db } from '../db/client.js';
import { accounts } from '../db/schema.js';

/** Luxon's weekday (1 = Monday ... 7 = Sunday) as the hours' key. */
const dayKey = (weekday: number) => WEEKDAYS[weekday - 1]!;
const minuteOfDay = (t: DateTime) => t.hour * 60 + t.minute;
const ALL_DAY: readonly Opening[] = [{ open: '00:00', close: '24:00' }];

/**
 * A day as stored: its first opening and last closing (all a release before several openings a
 * day reads, so it keeps working through a rolling restart), with every opening in `openings` when
 * there are several.
 */
type StoredDay = Opening & { openings?: Opening[] };

/** A day's openings from any shape it was written in: a list, a stored day, or null (closed). */
function openingsOf(day: WeekHours[Weekday] | StoredDay | undefined): Opening[] {
  if (!day) return [];
  if (Array.isArray(day)) return day;
  const several = (day as StoredDay).openings;
  return Array.isArray(several) && several.length ? several : [{ open: day.open, close: day.close }];
}

/** Every weekday's openings, sorted, from the hours as stored or as accepted (null: always open). */
export function readWeek(hours: WeekHours | null | undefined): WeekOpenings | null {
  if (!hours) return null;
  return Object.fromEntries(WEEKDAYS.map((d) => [d, [...openingsOf(hours[d])].sort((a, b) => minutesOf(a.open) - minutesOf(b.open))])) as WeekOpenings;
}

/** The hours as stored (see StoredDay): a closed day null, one opening as it always was. */
export function toStored(week: WeekOpenings | null): WeekHours | null {
  if (!week) return null;
  return Object.fromEntries(
    WEEKDAYS.map((d) => {
      const list = week[d];
      if (!list.length) return [d, null];
      const day: StoredDay = { open: list[0]!.open, close: list.at(-1)!.close };
      if (list.length > 1) day.openings = list;
      return [d, day];
    }),
  ) as WeekHours;
}

/** The openings of `local`'s date: none on a closed date, all day when always open. */
function openingsOn(local: DateTime, week: WeekOpenings | null, closed: ReadonlySet<string>): readonly Opening[] {
  if (closed.has(local.toISODate() ?? '')) return [];
  return week ? week[dayKey(local.weekday)] : ALL_DAY;
}

/**
 * Whether `now` is within the hours (null hours: always open, but for closed dates). An unknown
 * zone is read as UTC. Each opening runs from its opening minute up to, not including, its closing one.
 */
export function isOpenAt(hours: WeekHours | null | undefined, timeZone: string, now: Date, closedDates: readonly string[] = []): boolean {
  const week = readWeek(hours);
  if (!week && !closedDates.length) return true;
  const local = DateTime.fromJSDate(now, { zone: zoneOrUtc(timeZone) });
  const m = minuteOfDay(local);
  return openingsOn(local, week, new Set(closedDates)).some((o) => m >= minutesOf(o.open) && m < minutesOf(o.close));
}

/**
 * The next instant the hours open after `now`, or null when open now or always open. Closed dates
 * are skipped (so a holiday before a weekend opens on the Monday). A day closing at 24:00 followed
 * by one opening at 00:00 counts as open through midnight.
 */
export function nextOpening(hours: WeekHours | null | undefined, timeZone: string, now: Date, closedDates: readonly string[] = []): Date | null {
  if (isOpenAt(hours, timeZone, now, closedDates)) return null;
  const week = readWeek(hours);
  const closed = new Set(closedDates);
  const zone = zoneOrUtc(timeZone);
  const local = DateTime.fromJSDate(now, { zone });
  // A week, plus a day for every closed date that may stand in the way.
  for (let d = 0; d <= 7 + closed.size; d++) {
    const day = local.plus({ days: d });
    for (const o of openingsOn(day, week, closed)) {
      const open = minutesOf(o.open);
      if (d === 0 && minuteOfDay(local) >= open) continue; // this opening has passed today
      const at = wallClock(day, open, zone);
      if (at.toMillis() > now.getTime()) return at.toJSDate();
    }
  }
  return null;
}

/** The zone's date today ("YYYY-MM-DD"): closed dates before it are past. */
export function todayIn(timeZone: string, now = new Date()): string {
  return DateTime.fromJSDate(now, { zone: zoneOrUtc(timeZone) }).toISODate() ?? now.toISOString().slice(0, 10);
}

/** Closed dates from today on (in the zone): past ones are dropped. */
export const upcomingDates = (dates: readonly string[] | null | undefined, timeZone: string, now = new Date()): string[] => {
  const today = todayIn(timeZone, now);
  return (dates ?? []).filter((d) => d >= today);
};

/** The instant the zone's wall clock first reads `minutes` after midnight on `day`'s date. */
function wallClock(day: DateTime, minutes: number, zone: string): DateTime {
  if (minutes >= 1440) return DateTime.fromObject({ year: day.year, month: day.month, day: day.day }, { zone }).plus({ days: 1 });
  const wanted = { year: day.year, month: day.month, day: day.day, hour: Math.floor(minutes / 60), minute: minutes % 60 };
  let at = DateTime.fromObject(wanted, { zone });
  // In a spring-forward gap the time does not exist and luxon moves it forward by the gap: step
  // back to the gap's end, the first minute whose wall clock is past the wanted time.
  if (at.hour !== wanted.hour || at.minute !== wanted.minute) {
    for (let i = 0; i < 240; i++) {
      const before = at.minus({ minutes: 1 });
      if (before.day !== wanted.day || minuteOfDay(before) < minutes) break;
      at = before;
    }
  }
  // On a fall-back night the time is there twice: the wall clock passes it the first time.
  const earlier = at.minus({ hours: 1 });
  if (earlier.hour === at.hour && earlier.minute === at.minute && earlier.day === at.day) at = earlier;
  return at;
}

function zoneOrUtc(timeZone: string): string {
  return DateTime.local().setZone(timeZone).isValid ? timeZone : 'UTC';
}

/**
 * "today at 09:00", "tomorrow at 09:00", "Monday at 09:00" or, a week or more ahead, "Monday
 * 30 November at 09:00": when `at` is, as read in `timeZone` from `now` (English, 24-hour clock).
 */
export function whenInWords(at: Date, now: Date, timeZone: string): string {
  const zone = zoneOrUtc(timeZone);
  const a = DateTime.fromJSDate(at, { zone }).setLocale('en-GB');
  const days = Math.round(a.startOf('day').diff(DateTime.fromJSDate(now, { zone }).startOf('day'), 'days').days);
  const time = a.toFormat('HH:mm');
  if (days <= 0) return `today at ${time}`;
  if (days === 1) return `tomorrow at ${time}`;
  if (days < 7) return `${a.toFormat('cccc')} at ${time}`;
  return `${a.toFormat('cccc d LLLL')} at ${time}`;
}

/** The account's hours, closed dates and zone, as the hand-over and the widget read them. */
export async function accountHours(db: Db, accountId: string): Promise<{ timeZone: string; hours: WeekHours | null; closedDates: string[] }> {
  const [row] = await db
    .select({ timeZone: accounts.timeZone, hours: accounts.businessHours, closedDates: accounts.closedDates })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return { timeZone: row?.timeZone ?? 'UTC', hours: row?.hours ?? null, closedDates: row?.closedDates ?? [] };
}
