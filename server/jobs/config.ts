import type { JobsConfig } from '../config.js';

export interface JobsSettings {
  missedChatDelayMs: number;
  attempts: number;
  backoffMs: number;
  batchWindowMs: number;
  queuePrefix: string;
  pollMs: number;
}

/** The jobs' settings in the units they use, from config.jobs. */
export function jobsSettings(c: JobsConfig): JobsSettings {
  return {
    missedChatDelayMs: c.missedChatDelaySeconds * 1000,
    attempts: c.attempts,
    backoffMs: c.backoffMs,
    batchWindowMs: c.batchWindowSeconds * 1000,
    queuePrefix: c.queuePrefix,
    pollMs: c.pollMs,
  };
}
