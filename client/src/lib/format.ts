import { PREVIEW_CHARS } from '@parley/shared';

/** Formatters of SPEC.md (times, previews, names, confidence). Pure, unit-tested. */

function toDate(value: string | number | Date | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Short US date-time: month, day, hour, minute ("Mar 5, 02:07 PM"); 'N/A' when missing/invalid. */
export function shortDateTime(value: string | number | Date | null | undefined, fallback = 'N/A'): string {
  const d = toDate(value);
  if (!d) return fallback;
  return d.toLocaleString('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** Clock time only ("02:07 PM") for chat bubbles. */
export function shortTime(value: string | number | Date | null | undefined, fallback = 'N/A'): string {
  const d = toDate(value);
  if (!d) return fallback;
  return d.toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit' });
}

/** "N minutes ago" (rounded down; 'just now' under a minute, hours/days past an hour). */
export function minutesAgo(value: string | number | Date | null | undefined, now: number = Date.now()): string {
  const d = toDate(value);
  if (!d) return 'N/A';
  const mins = Math.max(0, Math.floor((now - d.getTime()) / 60_000));
  if (mins < 1) return 'just now';
  if (mins < 60) return `${mins} minute${mins === 1 ? '' : 's'} ago`;
  const hours = Math.floor(mins / 60);
  if (hours < 24) return `${hours} hour${hours === 1 ? '' : 's'} ago`;
  const days = Math.floor(hours / 24);
  return `${days} day${days === 1 ? '' : 's'} ago`;
}

/** Last-message preview: cut to 50 characters plus '...', or 'No message'. */
export function preview(text: string | null | undefined, max = PREVIEW_CHARS): string {
  if (!text) return 'No message';
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** At most the first five words of a name, or 'User' (dashboard welcome line). */
export function firstFiveWords(name: string | null | undefined, fallback = 'User'): string {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  return words.length ? words.slice(0, 5).join(' ') : fallback;
}

/** Avatar initial: first letter uppercased, or 'A' (Anonymous) when there is no name. */
export function initial(name: string | null | undefined, fallback = 'A'): string {
  const t = (name ?? '').trim();
  return t ? t.charAt(0).toUpperCase() : fallback;
}

export type ConfidenceLevel = 'High' | 'Medium' | 'Low';

/** SPEC.md section 4: 0.8 or more High, 0.6 or more Medium, otherwise Low. */
export function confidenceLevel(score: number | null | undefined): ConfidenceLevel {
  const s = typeof score === 'number' && Number.isFinite(score) ? score : 0;
  if (s >= 0.8) return 'High';
  if (s >= 0.6) return 'Medium';
  return 'Low';
}

/** Label with percentage: "High (85%)". */
export function confidenceLabel(score: number | null | undefined): string {
  const s = typeof score === 'number' && Number.isFinite(score) ? score : 0;
  return `${confidenceLevel(s)} (${Math.round(s * 100)}%)`;
}

/** Visitor display name: 'Anonymous' when empty. */
export function visitorName(name: string | null | undefined): string {
  return name?.trim() ? name.trim() : 'Anonymous';
}

/** Pluralised count: "1 new message" / "3 new messages". */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Four avatar color styles cycling by list index (SPEC.md section 9). */
export function avatarStyle(index: number): string {
  return `avatar-c${((index % 4) + 4) % 4}`;
}
