import type { FastifyInstance } from 'fastify';

/**
 * Queues the account's storage sweep once the grace period has passed (one pending sweep per
 * account: later files join it, and the sweep defers itself for files still too young). Also
 * for anything that deletes messages, so their files go without waiting for the next upload.
 */
export async function scheduleStorageSweep(app: FastifyInstance, accountId: string): Promise<void> {
  const graceMs = app.config.uploads.abandonedAfterMs;
  await app.jobs.enqueue('storage.sweep', { accountId, graceMs }, { delayMs: graceMs + 1000, dedupeKey: `storage.sweep:${accountId}` });
}
