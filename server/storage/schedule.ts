import type { FastifyInstance } from 'fastify';
import { recordExistingFiles } from './adopt.js';

/**
 * Queues the account's storage sweep once the grace period has passed (one pending sweep per
 * account: later files join it, and the sweep defers itself for files still too young). Also
 * for anything that deletes messages, so their files go without waiting for the next upload.
 */
export async function scheduleStorageSweep(app: FastifyInstance, accountId: string): Promise<void> {
  const graceMs = app.config.uploads.abandonedAfterMs;
  await app.jobs.enqueue('storage.sweep', { accountId, graceMs }, { delayMs: graceMs + 1000, dedupeKey: `storage.sweep:${accountId}` });
}

/**
 * At start, in the background: record the uploads stored before usage was (storage/adopt.ts).
 * Every node may do it at once (idempotent); the marker it leaves makes later starts skip it.
 */
export function startRecordingExisting(app: FastifyInstance): void {
  // Files stored before records existed were only ever on the local folder.
  if (app.storage.backend.kind === 'local') void recordExistingFiles(app.db, app.storage.root, app.log).catch((err: unknown) => app.log.warn({ err }, 'recording existing uploads failed; it runs again at the next start'));
}
