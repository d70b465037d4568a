import { lt, or } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { authTokens, emailChanges, knownDevices, userLinks } from '../db/schema.js';

export type SessionLifetime = Config['sessions'];

/** The two ends of a session: unused for `idleSeconds`, or `maxSeconds` after sign-in. */
export function sessionExpired(s: SessionLifetime, token: { createdAt: Date; lastUsedAt: Date }, now = Date.now()): boolean {
  return now - token.lastUsedAt.getTime() > s.idleSeconds * 1000 || now - token.createdAt.getTime() > s.maxSeconds * 1000;
}

/**
 * How stale last_used_at may get before a use writes it again: a minute (presence reads it),
 * sooner when the idle lifetime is short, so a session in use never looks idle.
 */
export const touchAfterMs = (s: SessionLifetime): number => Math.min(60_000, (s.idleSeconds * 1000) / 10);

/**
 * Deletes expired sessions (and stale email-change links and known devices) and closes their live sockets through the one revocation path
 * (`sessions.revoked`). Each token is deleted by one node only (DELETE ... RETURNING), so
 * with several nodes each expiry is told once.
 */
export async function sweepExpiredSessions(app: FastifyInstance, now = Date.now()): Promise<number> {
  const s = app.config.sessions;
  const expired = await app.db
    .delete(authTokens)
    .where(or(lt(authTokens.lastUsedAt, new Date(now - s.idleSeconds * 1000)), lt(authTokens.createdAt, new Date(now - s.maxSeconds * 1000))))
    .returning({ tokenHash: authTokens.tokenHash });
  for (const { tokenHash } of expired) await app.events.emit('sessions.revoked', { tokenHash });
  // Housekeeping of the other sign-in rows: dead email-change links, devices unseen for a year (their cookie's life).
  await app.db.delete(emailChanges).where(lt(emailChanges.expiresAt, new Date(now)));
  await app.db.delete(userLinks).where(lt(userLinks.expiresAt, new Date(now))); // dead reset/verify links, 2FA challenges
  await app.db.delete(knownDevices).where(lt(knownDevices.lastUsedAt, new Date(now - 365 * 86_400_000)));
  return expired.length;
}

/** Sweeps on a timer: every minute, or a quarter of the shortest lifetime when that is sooner (tests). */
export function startSessionExpiry(app: FastifyInstance): void {
  const s = app.config.sessions;
  const everyMs = Math.max(250, Math.min(60_000, (Math.min(s.idleSeconds, s.maxSeconds) * 1000) / 4));
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    timer = setInterval(() => {
      running = sweepExpiredSessions(app).catch((err: unknown) => app.log.warn({ err }, 'session expiry sweep failed'));
    }, everyMs);
    timer.unref();
  });
  app.addHook('preClose', async () => {
    clearInterval(timer);
    await running;
  });
}
