/** Snooze choices of the conversation header (issue 16): 1 hour, tomorrow, next week, a date. */

/**
 * The server's names for the quick choices: it computes them in the account's time zone
 * (tomorrow and next week wake at 09:00 there; PRODUCT.md section 11).
 */
export type SnoozeChoice = '1h' | 'tomorrow' | 'next_week';

export const SNOOZE_CHOICES: { value: SnoozeChoice; label: string }[] = [
  { value: '1h', label: '1 hour' },
  { value: 'tomorrow', label: 'Tomorrow' },
  { value: 'next_week', label: 'Next week' },
];

/** A `datetime-local` input's value ("2026-03-04T09:30") as a Date, or null when empty/invalid/past. */
export function parseLocalDateTime(value: string, now: Date = new Date()): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value)) return null;
  const d = new Date(value);
  if (Number.isNaN(d.getTime()) || d.getTime() <= now.getTime()) return null;
  return d;
}

/** The value for a `datetime-local` input (local time, minutes). */
export function toLocalInput(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}
