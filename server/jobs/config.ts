import type { Config } from '../config.js';

/** The jobs area's settings; the lead adds them to config.ts as `config.jobs` (see the report). */
export interface JobsConfig {
  /** JOBS_WORKERS: run the workers in the server process (false when `npm run worker` runs them). */
  workers: boolean;
  /** MISSED_CHAT_DELAY_SECONDS: how long a visitor message may stay unanswered. */
  missedChatDelaySeconds: number;
  /** JOB_ATTEMPTS: runs before a job is kept as failed. */
  attempts: number;
  /** JOB_BACKOFF_MS: first retry delay; doubled on each retry. */
  backoffMs: number;
  /** At most one email per conversation per kind within this window. */
  batchWindowSeconds: number;
  /** BullMQ key prefix (tests use a unique one). */
  queuePrefix: string;
  /** In-process runner: how often the database is polled for due jobs. */
  pollMs: number;
}

export interface JobsSettings {
  workers: boolean;
  missedChatDelayMs: number;
  attempts: number;
  backoffMs: number;
  batchWindowMs: number;
  queuePrefix: string;
  pollMs: number;
}

export const JOBS_DEFAULTS: JobsConfig = {
  workers: true,
  missedChatDelaySeconds: 180,
  attempts: 5,
  backoffMs: 10_000,
  batchWindowSeconds: 600,
  queuePrefix: 'parley',
  pollMs: 1000,
};

/** config.jobs may not exist yet (config.ts is not this area's file): every field has a default. */
export function jobsSettings(config: Config, overrides: Partial<JobsConfig> = {}): JobsSettings {
  const fromConfig = (config as Config & { jobs?: Partial<JobsConfig> }).jobs ?? {};
  const c = { ...JOBS_DEFAULTS, ...fromConfig, ...overrides };
  return {
    workers: c.workers,
    missedChatDelayMs: c.missedChatDelaySeconds * 1000,
    attempts: c.attempts,
    backoffMs: c.backoffMs,
    batchWindowMs: c.batchWindowSeconds * 1000,
    queuePrefix: c.queuePrefix,
    pollMs: c.pollMs,
  };
}

export function publicUrlOf(config: Config): string {
  return config.publicUrl ?? `http://localhost:${config.port}`;
}
