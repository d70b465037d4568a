import { and, eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { knownDevices } from '../../db/schema.js';
import { HttpError } from '../../errors.js';
import { ipKey } from '../../services/rateLimit.js';
import { hashToken, newToken } from '../../services/secrets.js';

/**
 * Sign-in throttling that slows a guesser without locking the owner out (issue 11, finding 8):
 * - failures per IP + email: past LOGIN_LIMIT_PER_IP_EMAIL that IP waits; other IPs do not;
 * - failures per email from all IPs: past LOGIN_LIMIT_PER_EMAIL only a known device (a browser
 *   that signed in to this user before, by its cookie) gets through, and its success lifts the lock;
 * - when either throttle engages, the user is emailed (once per 15-minute window).
 */
export const DEVICE_COOKIE = 'parley_device';
const DEVICE_TOKEN = /^[A-Za-z0-9_-]{43}$/;
const DEVICE_COOKIE_SECONDS = 365 * 86_400;

function deviceCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === DEVICE_COOKIE && value && DEVICE_TOKEN.test(value)) return value;
  }
  return undefined;
}

export interface SignInAttempt {
  ip: string;
  emailKey: string;
  pairKey: string;
  /** The browser's device cookie, if any. */
  device: string | undefined;
}

export function signInAttempt(request: FastifyRequest, email: string): SignInAttempt {
  const emailKey = email.toLowerCase();
  const ip = ipKey(request.ip); // IPv6 by its /64
  return { ip, emailKey, pairKey: `${ip}|${emailKey}`, device: deviceCookie(request) };
}

/** Whether this browser signed in to this user before. */
export async function isKnownDevice(app: FastifyInstance, userId: number | undefined, device: string | undefined): Promise<boolean> {
  if (userId === undefined || !device) return false;
  const [row] = await app.db
    .select({ id: knownDevices.id })
    .from(knownDevices)
    .where(and(eq(knownDevices.userId, userId), eq(knownDevices.tokenHash, hashToken(device))));
  return row !== undefined;
}

/** Before the password is checked: 429 while this IP, or (for an unknown device) this email, is throttled. */
export async function checkSignIn(app: FastifyInstance, attempt: SignInAttempt, knownDevice: boolean): Promise<void> {
  await app.limiters.loginIp.consume(attempt.ip);
  await app.limiters.loginIpEmail.check(attempt.pairKey);
  if (!knownDevice) await app.limiters.loginEmail.check(attempt.emailKey);
}

const isTooMany = (e: unknown) => e instanceof HttpError && e.statusCode === 429;

/** Counts a hit for key; true only when this hit spent the last point (the throttle engages now). */
async function countAndSpent(limiter: FastifyInstance['limiters']['loginEmail'], key: string): Promise<boolean> {
  try {
    await limiter.check(key);
    await limiter.consume(key);
  } catch (e) {
    if (isTooMany(e)) return false; // already throttled before this hit
    throw e;
  }
  try {
    await limiter.check(key);
    return false;
  } catch (e) {
    if (isTooMany(e)) return true;
    throw e;
  }
}

/** A wrong password: counted per IP + email and per email; the user is told when a throttle engages. */
export async function signInFailed(app: FastifyInstance, attempt: SignInAttempt, userId: number | undefined): Promise<void> {
  const pairSpent = await countAndSpent(app.limiters.loginIpEmail, attempt.pairKey);
  const emailSpent = await countAndSpent(app.limiters.loginEmail, attempt.emailKey);
  if (userId === undefined || !(pairSpent || emailSpent)) return;
  // Once per window per user, on any node (the limiter is shared with REDIS_URL).
  if (await countAndSpent(app.limiters.loginAlert, attempt.emailKey)) {
    const failures = pairSpent && !emailSpent ? app.config.rateLimits.loginPerIpEmail : app.config.rateLimits.loginPerEmail;
    const at = Date.now();
    await app.jobs.enqueue('auth.loginAttack', { userId, failures, at }, { dedupeKey: `loginAttack:${userId}:${at}` });
  }
}

/**
 * The right password: this IP's count starts again; on a known device the email's lock lifts.
 * The browser is remembered as a known device of the user (its cookie, set or renewed).
 */
export async function signInSucceeded(app: FastifyInstance, attempt: SignInAttempt, userId: number, knownDevice: boolean, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  await app.limiters.loginIpEmail.reset(attempt.pairKey);
  if (knownDevice) await app.limiters.loginEmail.reset(attempt.emailKey);
  const device = attempt.device ?? newToken();
  await app.db
    .insert(knownDevices)
    .values({ userId, tokenHash: hashToken(device) })
    .onConflictDoUpdate({ target: [knownDevices.userId, knownDevices.tokenHash], set: { lastUsedAt: new Date() } });
  const secure = request.protocol === 'https' ? '; Secure' : '';
  void reply.header('set-cookie', `${DEVICE_COOKIE}=${device}; Path=/api/vms/login; Max-Age=${DEVICE_COOKIE_SECONDS}; HttpOnly; SameSite=Strict${secure}`);
}
