import type { CannedReplyDto } from '@parley/shared';

/** How many matches the `/` list shows at once. */
export const PICKER_LIMIT = 8;

/**
 * The `/query` being typed at the end of the composer's text (at its start or after a space),
 * or null when there is none: `/` alone opens the whole list.
 */
export function slashQuery(text: string): { query: string; start: number } | null {
  const m = /(^|\s)\/([\w-]*)$/.exec(text);
  if (!m) return null;
  return { query: m[2]!.toLowerCase(), start: m.index + m[1]!.length };
}

/** Canned replies matching the query: shortcut prefix first, then shortcut or title containing it. */
export function matchCanned(list: CannedReplyDto[], query: string): CannedReplyDto[] {
  const q = query.toLowerCase();
  if (!q) return list.slice(0, PICKER_LIMIT);
  const prefix = list.filter((r) => r.shortcut.startsWith(q));
  const rest = list.filter((r) => !r.shortcut.startsWith(q) && (r.shortcut.includes(q) || r.title.toLowerCase().includes(q)));
  return [...prefix, ...rest].slice(0, PICKER_LIMIT);
}
