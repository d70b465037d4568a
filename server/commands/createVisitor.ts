import type { Db } from '../db/client.js';
import { visitors } from '../db/schema.js';
import type { VisitorRow } from '../presenters/visitor.js';
import { countryForIp, normalizeIp } from '../services/geo.js';
import { hashToken, newToken } from '../services/secrets.js';
import { parseUserAgent } from '../services/userAgent.js';

export interface CreateVisitorInput {
  accountId: string;
  ip: string | undefined;
  userAgent: string | undefined;
  name: string;
  email: string;
  pageUrl: string;
  referrer: string;
  locale: string;
  /** The browser's IANA zone ('' when the widget did not say). */
  timeZone?: string | undefined;
}

/**
 * A widget visitor on first contact, with where they are (offline GeoIP) and what they use
 * (user agent). The token is returned once; only its hash is kept.
 */
export async function createVisitor(db: Db, input: CreateVisitorInput): Promise<{ visitor: VisitorRow; token: string }> {
  const token = newToken();
  const ip = normalizeIp(input.ip);
  const client = parseUserAgent(input.userAgent);
  const [visitor] = await db
    .insert(visitors)
    .values({
      accountId: input.accountId,
      tokenHash: hashToken(token),
      name: input.name,
      email: input.email,
      ip,
      country: countryForIp(ip),
      browser: client.browser,
      os: client.os,
      device: client.device,
      currentPage: input.pageUrl,
      referrer: input.referrer,
      locale: input.locale,
      ...(input.timeZone ? { timeZone: input.timeZone } : {}),
    })
    .returning();
  if (!visitor) throw new Error('visitor insert returned nothing');
  return { visitor, token };
}
