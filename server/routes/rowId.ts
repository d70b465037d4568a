import { notFound } from '../errors.js';

/** A serial id from the path; anything that is not a positive PostgreSQL integer is simply not found. */
export function parseRowId(raw: string, what: string): number {
  if (!/^[1-9]\d{0,9}$/.test(raw)) throw notFound(what);
  const id = Number(raw);
  if (id > 2_147_483_647) throw notFound(what);
  return id;
}
