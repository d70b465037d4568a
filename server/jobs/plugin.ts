import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type Config, publicUrlOf } from '../config.js';
import type { Db } from '../db/client.js';
import { subscribeNotifications } from '../notifications/subscribe.js';
import { isVisitorOnline } from '../realtime/visitorPresence.js';
import type { DomainEvents } from '../services/domainEvents.js';
import { subscribeLifecycle } from './lifecycle.js';
import { createMailer } from '../services/mail.js';
import { secretBoxFor } from '../services/secrets.js';
import { type JobsSettings, jobsSettings } from './config.js';
import { InProcessRunner } from './inProcess.js';
import { registerJobMetrics } from './metrics.js';
import { Jobs } from './queue.js';
import type { JobContext, JobQueue, JobRunner } from './types.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Background jobs: app.jobs.enqueue(name, payload, { delayMs, dedupeKey }), app.jobs.cancel(key). */
    jobs: JobQueue;
  }
}

/**
 * The handlers' context and the runner chosen by the config (shared with `npm run worker`).
 * BullMQ is loaded only with REDIS_URL: the embedded default never pays for the import.
 */
export async function createJobRunner(
  config: Config,
  db: Db,
  log: FastifyBaseLogger,
  settings: JobsSettings = jobsSettings(config.jobs, config.visitorReplies),
  events?: DomainEvents,
  visitorOnline?: JobContext['visitorOnline'],
  observe?: JobContext['observe'],
): Promise<JobRunner> {
  const mailer = createMailer(config, log);
  const ctx: JobContext = { db, log, mailer, secrets: secretBoxFor(config), settings, publicUrl: publicUrlOf(config), storageRoot: config.uploads.root, events, visitorOnline, observe };
  const backend = config.redisUrl ? new (await import('./bullmq.js')).BullmqRunner(config.redisUrl, ctx) : new InProcessRunner(db, ctx);
  const runner = new Jobs(db, log, backend, settings);
  const close = runner.close.bind(runner);
  runner.close = async () => {
    await close();
    mailer.close();
  };
  return runner;
}

/** Starts the outbox relay and the job runner (BullMQ with REDIS_URL, in-process otherwise) and subscribes notifications. */
export async function registerJobs(app: FastifyInstance): Promise<void> {
  const settings = jobsSettings(app.config.jobs, app.config.visitorReplies);
  // Sockets live in the realtime plugin, registered after this one: looked up when a job asks.
  const visitorOnline = (visitorId: string) => isVisitorOnline(app.io, visitorId);
  const runner = await createJobRunner(app.config, app.db, app.log, settings, app.events, visitorOnline, (name, seconds, outcome) => app.metrics.jobRan(name, seconds, outcome));
  app.decorate('jobs', runner as JobQueue);
  subscribeNotifications({ db: app.db, events: app.events, jobs: runner });
  subscribeLifecycle({ db: app.db, events: app.events, jobs: runner });
  registerJobMetrics(app.metrics.registry, runner);
  // Every node relays the outbox, whether or not it runs workers: any live node hands jobs over.
  app.addHook('onReady', async () => {
    runner.startRelay();
    if (app.config.jobs.workers) await runner.startWorkers();
  });
  // Before the database closes: stop taking jobs, let running ones finish or hand them back.
  app.addHook('onClose', () => runner.close());
}
