/**
 * Issue 17: an account's business hours (accounts.business_hours, in accounts.time_zone) — whether
 * the team is within them at an instant, and when they next open. Hours are wall-clock times of
 * the zone, so a daylight-saving change moves the instant, never the local time: 09:00 stays 09:00.
 * An opening that falls in a spring-forward gap (02:30 on the night clocks jump 02:00 -> 03:00)
 * opens at the first local minute after it (03:00), the moment the wall clock passes 02:30.
 */
import { WEEKDAYS, type WeekHours, minutesOf } from '@parley/shared';
import { eq } from 'drizzle-orm';
import { DateTime } from 'luxon';
import type { Db } from '../db/client.js';
import { accounts } from '../db/schema.js';

/** Luxon's weekday (1 = Monday ... 7 = Sunday) as the hours' key. */
const dayKey = (weekday: number) => WEEKDAYS[weekday - 1]!;
const minuteOfDay = (t: DateTime) => t.hour * 60 + t.minute;

/** Whether `now` is within the hours (null hours: always open). An unknown zone is read as UTC. */
export function isOpenAt(hours: WeekHours | null | undefined, timeZone: string, now: Date): boolean {
  if (!hours) return true;
  const local = DateTime.fromJSDate(now, { zone: zoneOrUtc(timeZone) });
  const today = hours[dayKey(local.weekday)];
  if (!today) return false;
  const m = minuteOfDay(local);
  return m >= minutesOf(today.open) && m < minutesOf(today.close);
}

/**
 * The next instant the hours open after `now` (within 8 days), or null when open now or with no
 * hours. A day closing at 24:00 followed by one opening at 00:00 counts as open through midnight.
 */
export function nextOpening(hours: WeekHours | null | undefined, timeZone: string, now: Date): Date | null {
  if (!hours || isOpenAt(hours, timeZone, now)) return null;
  const zone = zoneOrUtc(timeZone);
  const local = DateTime.fromJSDate(now, { zone });
  for (let d = 0; d <= 7; d++) {
    const day = local.plus({ days: d });
    const h = hours[dayKey(day.weekday)];
    if (!h) continue;
    const open = minutesOf(h.open);
    if (d === 0 && minuteOfDay(local) >= open) continue; // today's opening has passed
    const at = wallClock(day, open, zone);
    if (at.toMillis() > now.getTime()) return at.toJSDate();
  }
  return null;
}

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

/** The account's hours and zone, as the hand-over and the settings read them. */
export async function accountHours(db: Db, accountId: string): Promise<{ timeZone: string; hours: WeekHours | null }> {
  const [row] = await db.select({ timeZone: accounts.timeZone, hours: accounts.businessHours }).from(accounts).where(eq(accounts.id, accountId));
  return { timeZone: row?.timeZone ?? 'UTC', hours: row?.hours ?? null };
}
