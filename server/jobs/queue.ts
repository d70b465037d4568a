import type { FastifyBaseLogger } from 'fastify';
import type { Db, Tx } from '../db/client.js';
import { dropOutbox, type OutboxEntry, writeOutbox } from '../outbox/outbox.js';
import { OutboxRelay } from '../outbox/relay.js';
import { SYSTEM_LANE, runInLane } from '../db/fair.js';
import type { JobsSettings } from './config.js';
import { type JobName, type JobPayloads, validatePayload } from './registry.js';
import { JOB_TOPIC, type EnqueueOptions, type JobBackend, type JobCounts, type JobRunner } from './types.js';

/** A job as an outbox entry, its payload checked now (a bad enqueue fails at the caller, not in a worker). */
export function jobEntry(name: string, payload: unknown, opts: EnqueueOptions = {}): OutboxEntry {
  return { topic: JOB_TOPIC, name, payload: validatePayload(name, payload), dedupeKey: opts.dedupeKey, delayMs: opts.delayMs };
}

/**
 * app.jobs: every job is written to the outbox first (in the caller's transaction when given),
 * then the relay hands it to the backend (BullMQ, or the in-process runner's table). Dedupe
 * keys are held by the outbox row until the job finished, on both backends alike.
 */
export class Jobs implements JobRunner {
  readonly kind: JobBackend['kind'];
  private relay: OutboxRelay;

  constructor(
    private db: Db,
    log: FastifyBaseLogger,
    private backend: JobBackend,
    readonly settings: JobsSettings,
  ) {
    this.kind = backend.kind;
    this.relay = new OutboxRelay(db, log, { [JOB_TOPIC]: backend }, settings.relay);
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N], opts: EnqueueOptions = {}, tx?: Tx): Promise<void> {
    const entry = jobEntry(name, payload, opts);
    if (!tx && this.backend.insertNow) return this.backend.insertNow(entry);
    await writeOutbox(tx ?? this.db, [entry]);
    if (!tx) this.wake();
  }

  wake(): void {
    // Woken by a request, the relay's passes are still the server's own work, not that tenant's.
    runInLane(SYSTEM_LANE, () => this.relay.wake());
  }

  async cancel(dedupeKey: string): Promise<void> {
    const dropped = await dropOutbox(this.db, JOB_TOPIC, dedupeKey);
    await this.backend.cancel(
      dedupeKey,
      dropped.filter((r) => r.status === 'relayed'),
    );
  }

  async counts(): Promise<JobCounts> {
    // Rows move from the outbox to the backend: read the outbox first, so a row moving meanwhile
    // is counted twice at worst, never missed. A job waiting in the outbox is pending too.
    const outbox = await this.relay.counts();
    const queued = await this.backend.counts();
    return { pending: queued.pending + outbox.pending, failed: queued.failed };
  }

  async outbox() {
    return { ...(await this.relay.counts()), totals: { ...this.relay.totals } };
  }

  startWorkers(): Promise<void> {
    return this.backend.startWorkers();
  }

  startRelay(): void {
    this.relay.start();
  }

  async close(): Promise<void> {
    await this.relay.close();
    await this.backend.close();
  }
}
