import type { JobsConfig, WebhookSettings } from '../config.js';
import type { RelaySettings } from '../outbox/relay.js';

export interface JobsSettings {
  missedChatDelayMs: number;
  /** How long an agent-reply email to an away visitor waits for later replies of the burst. */
  visitorReplyDelayMs: number;
  attempts: number;
  backoffMs: number;
  batchWindowMs: number;
  queuePrefix: string;
  pollMs: number;
  /** The outbox relay in front of the runner. */
  relay: RelaySettings;
  /** The owner's notification emails: at most `count` per account within `windowMs`; the rest wait for a digest, at most one per `digestMs`. */
  emailBudget: { count: number; windowMs: number; digestMs: number };
  /** Outbound webhook deliveries (issue 14). */
  webhooks: WebhookSettings;
}

/** The jobs' settings in the units they use, from config.jobs. */
export function jobsSettings(c: JobsConfig, visitorReplies: { batchSeconds: number }): JobsSettings {
  return {
    missedChatDelayMs: c.missedChatDelaySeconds * 1000,
    visitorReplyDelayMs: visitorReplies.batchSeconds * 1000,
    attempts: c.attempts,
    backoffMs: c.backoffMs,
    batchWindowMs: c.batchWindowSeconds * 1000,
    queuePrefix: c.queuePrefix,
    pollMs: c.pollMs,
    // The relay is woken by every write of this process; its polling only finds rows other
    // processes left (a crash, Redis down), so it need not look as often as the in-process runner.
    relay: { pollMs: Math.max(c.pollMs, 1000), checkAfterMs: c.outboxCheckSeconds * 1000, deliverTimeoutMs: c.relayTimeoutMs },
    emailBudget: { count: c.emailBudget, windowMs: c.emailBudgetSeconds * 1000, digestMs: c.digestSeconds * 1000 },
    webhooks: c.webhooks,
  };
}
