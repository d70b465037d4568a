import { z } from 'zod';
import { CURSOR_INVALID } from '@parley/shared';
import { validationError } from '../errors.js';

/**
 * Cursor paging shared by every list (issue 16; PRODUCT.md section 11): `limit` + `cursor` in,
 * `next_cursor` + `has_more` out. A cursor is the last row's sort key (keyset paging: no
 * duplicates or gaps while rows are inserted), opaque to clients: base64url of a JSON array.
 * A SPEC call sent without `limit` keeps its shape and answers at most SPEC_CAP rows.
 */
export const PAGE_MAX = 100;
/** The page size of a list that SPEC does not define, when no `limit` is sent. */
export const PAGE_DEFAULT = 20;
/** The most rows a SPEC call without `limit` returns (then `has_more` says there are more). */
export const SPEC_CAP = 500;
export const LIMIT_INVALID = `limit must be a whole number from 1 to ${PAGE_MAX}`;

export const pageQuery = z.object({
  limit: z.coerce.number({ error: LIMIT_INVALID }).int({ error: LIMIT_INVALID }).min(1, { error: LIMIT_INVALID }).max(PAGE_MAX, { error: LIMIT_INVALID }).optional(),
  cursor: z.string({ error: CURSOR_INVALID }).max(2048, { error: CURSOR_INVALID }).regex(/^[A-Za-z0-9_-]+$/, { error: CURSOR_INVALID }).optional(),
});

export type Key = string | number;

/** PostgreSQL's text of a timestamptz (microseconds kept: a JS Date would lose them), or ±infinity. */
const TIMESTAMP_TEXT = /^(-?infinity|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d{1,6})?([+-]\d\d(:?\d\d){0,2}|Z)?)$/;

export const encodeKey = (key: Key[]): string => Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');

/**
 * The key inside a cursor, checked against `shape` ('s' string, 'n' integer, 't' timestamp text);
 * a cursor this server did not give out (or for another list or order) is a 422 on `cursor`.
 */
export function decodeKey(cursor: string, shape: string): Key[] {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = null;
  }
  const ok =
    Array.isArray(key) &&
    key.length === shape.length &&
    key.every((v, i) => {
      const kind = shape[i];
      if (kind === 'n') return Number.isSafeInteger(v) && (v as number) >= 0;
      if (kind === 't') return typeof v === 'string' && TIMESTAMP_TEXT.test(v);
      return typeof v === 'string' && v.length <= 200;
    });
  if (!ok) throw validationError({ cursor: [CURSOR_INVALID] });
  return key as Key[];
}

/** Rows fetched with `limit + 1`: the page, whether more exist, and the cursor after the page. */
/** The single id inside a cursor of a list ordered by id (undefined without a cursor). */
export const idAfter = (cursor: string | undefined): number | undefined => (cursor === undefined ? undefined : (decodeKey(cursor, 'n')[0] as number));

export function pageOf<R>(rows: R[], limit: number, keyOf: (row: R) => Key[]): { rows: R[]; hasMore: boolean; nextCursor: string | null } {
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  return { rows: page, hasMore, nextCursor: hasMore && page.length > 0 ? encodeKey(keyOf(page.at(-1)!)) : null };
}
