/**
 * The signed link of a reply email (issue 12 item 8): `<base>/api/chat/<visitor id>.<expiry>.<mac>`,
 * the MAC an HMAC-SHA256 of "visitor id.expiry" under a key the server generates once and keeps
 * in the database (server_secrets), so every node signs and checks alike with nothing to
 * configure. It proves the mail came from us for this visitor and has not expired; it is not a
 * session: opening it issues the browser a visitor token of its own (visitor_tokens).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { serverSecrets, visitorTokens } from '../db/schema.js';
import { hashToken, newToken } from './secrets.js';

const KEY_NAME = 'visitor_link_hmac';
/** How long a reply email's link opens the chat. */
export const VISITOR_LINK_DAYS = 30;
const DAY_S = 24 * 60 * 60;
const LINK_PATTERN = /^([0-9a-f-]{36})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

const keys = new WeakMap<Db, Promise<Buffer>>();

/** The shared HMAC key: created by the first node that needs it, read by all (cached per database). */
function signingKey(db: Db): Promise<Buffer> {
  let key = keys.get(db);
  if (!key) {
    key = (async () => {
      await db.insert(serverSecrets).values({ name: KEY_NAME, value: randomBytes(32).toString('base64url') }).onConflictDoNothing();
      const [row] = await db.select({ value: serverSecrets.value }).from(serverSecrets).where(eq(serverSecrets.name, KEY_NAME));
      if (!row) throw new Error('the visitor link key is missing');
      return Buffer.from(row.value, 'base64url');
    })();
    key.catch(() => keys.delete(db));
    keys.set(db, key);
  }
  return key;
}

const mac = (key: Buffer, body: string) => createHmac('sha256', key).update(body).digest('base64url');

/** The link's last path segment for a visitor, valid `days` days from `now`. */
export async function signVisitorLink(db: Db, visitorId: string, now = new Date(), days = VISITOR_LINK_DAYS): Promise<string> {
  const body = `${visitorId}.${Math.floor(now.getTime() / 1000) + days * DAY_S}`;
  return `${body}.${mac(await signingKey(db), body)}`;
}

/** The visitor id of a genuine, unexpired link; undefined otherwise (bad form, bad MAC, expired). */
export async function verifyVisitorLink(db: Db, link: string, now = new Date()): Promise<string | undefined> {
  const m = LINK_PATTERN.exec(link);
  if (!m) return undefined;
  const [, visitorId, expiry, given] = m as unknown as [string, string, string, string];
  const expected = Buffer.from(mac(await signingKey(db), `${visitorId}.${expiry}`));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
  if (Number(expiry) * 1000 <= now.getTime()) return undefined;
  return visitorId;
}

/** A new widget token for the visitor, for the browser that opened the link. */
export async function issueVisitorToken(db: Db, visitorId: string): Promise<string> {
  const token = newToken();
  await db.insert(visitorTokens).values({ tokenHash: hashToken(token), visitorId });
  return token;
}
