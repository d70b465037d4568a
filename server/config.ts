import path from 'node:path';
import { z } from 'zod';
import type { PoolOptions } from './db/client.js';

/**
 * Configuration, read and validated once at boot. Nothing else reads process.env.
 * A bad value stops the start with a message naming the variable.
 */
const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : undefined))
    .refine((v) => v === undefined || protocols.some((p) => v.startsWith(`${p}://`)), {
      message: `must be a URL starting with ${protocols.map((p) => `${p}://`).join(' or ')}`,
    });

const intInRange = (fallback: number, min: number, max: number) =>
  z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === undefined || v === '' ? fallback : Number(v)))
    .refine((n) => Number.isInteger(n) && n >= min && n <= max, { message: `must be a whole number from ${min} to ${max}` });
/** Like intInRange, without a fallback: unset stays undefined. */
const optionalInt = (min: number, max: number) =>
  z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : Number(v)))
    .refine((n) => n === undefined || (Number.isInteger(n) && n >= min && n <= max), { message: `must be a whole number from ${min} to ${max}` });

const envSchema = z.object({
  PORT: intInRange(3000, 0, 65535),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  PUBLIC_URL: optionalUrl(['http', 'https']),
  DATA_DIR: z.string().trim().min(1).default('./data'),
  DATABASE_URL: optionalUrl(['postgres', 'postgresql']),
  REDIS_URL: optionalUrl(['redis', 'rediss']),
  /** Uploads in an S3-compatible bucket instead of DATA_DIR/storage (storage/backend.ts). */
  STORAGE_URL: optionalUrl(['s3']),
  SMTP_URL: optionalUrl(['smtp', 'smtps']),
  MAIL_FROM: z.string().trim().default('Parley <no-reply@localhost>'),
  /** Encrypts TOTP and webhook signing secrets at rest (services/secrets.ts); unset: DATA_DIR/secrets.key, made once. */
  SECRETS_KEY: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined)
    .refine((v) => v === undefined || v.length >= 32, { message: 'must be at least 32 characters (e.g. openssl rand -base64 32)' }),
  /** Fastify trustProxy: 'true', a hop count, or a comma list of addresses/CIDRs. */
  TRUST_PROXY: z.string().trim().default('false'),
  /** Extra origins allowed to call the console API from a browser (comma list). */
  CONSOLE_ORIGINS: z.string().trim().default(''),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOGIN_LIMIT_PER_IP: intInRange(30, 1, 1_000_000),
  LOGIN_LIMIT_PER_EMAIL: intInRange(10, 1, 1_000_000),
  REGISTER_LIMIT_PER_IP: intInRange(20, 1, 1_000_000),
  /** Redis key prefix of every rate-limit counter and socket slot (tests make it unique). */
  RATE_LIMIT_PREFIX: z.string().trim().min(1).max(100).default('parley:rl'),
  WIDGET_LIMIT_PER_IP: intInRange(600, 1, 10_000_000),
  WIDGET_LIMIT_PER_VISITOR: intInRange(120, 1, 10_000_000),
  WIDGET_LIMIT_PER_KEY: intInRange(6000, 1, 10_000_000),
  WIDGET_NEW_VISITORS_PER_IP: intInRange(100, 1, 10_000_000),
  WIDGET_SOCKETS_PER_VISITOR: intInRange(3, 1, 100_000),
  WIDGET_SOCKETS_PER_IP: intInRange(50, 1, 1_000_000),
  SOCKET_HANDSHAKES_PER_IP: intInRange(16, 1, 1_000_000),
  /** Burst buckets beside the widget limits (tokens at once, refilled that many a second); unset: defaultBurst. */
  WIDGET_BURST_PER_IP: optionalInt(1, 10_000_000),
  WIDGET_BURST_PER_VISITOR: optionalInt(1, 10_000_000),
  WIDGET_BURST_PER_KEY: optionalInt(1, 10_000_000),
  WIDGET_NEW_VISITORS_BURST_PER_IP: optionalInt(1, 10_000_000),
  /** New chats (a visitor's first message or offline form) per minute of one account, and at most at once (refilled at the minute's rate). */
  WIDGET_NEW_CHATS_PER_ACCOUNT: intInRange(120, 1, 10_000_000),
  WIDGET_NEW_CHATS_BURST: intInRange(30, 1, 10_000_000),
  /** One account's conversation-list calls (pages, filters, changes_since polls) per second and at once, per node (issue 16). */
  CONSOLE_LIST_PER_SECOND: intInRange(20, 1, 1_000_000),
  CONSOLE_LIST_BURST: intInRange(40, 1, 1_000_000),
  /** One account's widget writes of callers not yet chatting in progress at once per node, and how long one waits for its turn (ms) before 429. */
  WIDGET_WRITES_PER_ACCOUNT: intInRange(1, 1, 10_000),
  WIDGET_WRITE_WAIT_MS: intInRange(2000, 1, 600_000),
  /** The share of time (percent) each of those slots may be busy: it rests after a write in proportion to the write's time. */
  WIDGET_WRITE_SHARE: intInRange(25, 1, 100),
  /** The rest (ms) a lane of those slots is let off before it keeps to its share (a few writes now and then never wait). */
  WIDGET_WRITE_BURST_MS: intInRange(1000, 0, 600_000),
  /**
   * Connections of calls refused before they were read (plugins/refusalHolds.ts): a large body's is
   * held unread this long, then closed (ms; 0: closed at once); a kept-alive one's next call, or a
   * refused handshake's answer, waits REFUSAL_PAUSE_MS (0: none); at most this many held per address and per node.
   */
  REFUSAL_HOLD_MS: intInRange(10_000, 0, 600_000),
  REFUSAL_PAUSE_MS: intInRange(1000, 0, 60_000),
  REFUSAL_HOLD_PER_IP: intInRange(256, 0, 100_000),
  REFUSAL_HOLD_MAX: intInRange(1024, 0, 1_000_000),
  LOGIN_LIMIT_PER_IP_EMAIL: intInRange(5, 1, 1_000_000),
  PASSWORD_CHECK_LIMIT: intInRange(5, 1, 1_000_000),
  EMAIL_CHANGE_LIMIT: intInRange(5, 1, 1_000_000),
  /** Issue 14: forgot-password requests per email and per IP (hour); two-factor code guesses per user (15 min). */
  PASSWORD_RESET_LIMIT: intInRange(5, 1, 1_000_000),
  PASSWORD_RESET_LIMIT_PER_IP: intInRange(20, 1, 1_000_000),
  TWO_FACTOR_LIMIT: intInRange(5, 1, 1_000_000),
  SESSION_IDLE_SECONDS: intInRange(7 * 86_400, 1, 365 * 86_400),
  SESSION_MAX_SECONDS: intInRange(30 * 86_400, 1, 3650 * 86_400),
  PAYSTACK_SECRET_KEY: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : undefined)),
  PAYSTACK_BASE_URL: optionalUrl(['http', 'https']),
  /** Without PAYSTACK_SECRET_KEY: serve the built-in sandbox checkout (true) or refuse plan payments (false). */
  PAYMENT_SANDBOX: z.enum(['true', 'false'], { message: 'must be true or false' }).default('true'),
  PAYMENT_CURRENCY: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v.toUpperCase() : 'USD'))
    .refine((v) => /^[A-Z]{3}$/.test(v), { message: 'must be a 3-letter currency code such as USD' }),
  JOBS_WORKERS: z.enum(['true', 'false'], { message: 'must be true or false' }).default('true'),
  MISSED_CHAT_DELAY_SECONDS: intInRange(180, 1, 86_400),
  JOB_ATTEMPTS: intInRange(5, 1, 50),
  JOB_BACKOFF_MS: intInRange(10_000, 100, 3_600_000),
  VISITOR_REPLY_BATCH_SECONDS: intInRange(120, 1, 86_400),
  OUTBOX_CHECK_SECONDS: intInRange(60, 1, 86_400),
  NOTIFY_EMAIL_BUDGET: intInRange(10, 1, 10_000),
  NOTIFY_EMAIL_BUDGET_SECONDS: intInRange(3600, 1, 604_800),
  NOTIFY_DIGEST_SECONDS: intInRange(900, 1, 86_400),
  METRICS_TOKEN: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : undefined))
    .refine((v) => v === undefined || v.length >= 16, { message: 'must be at least 16 characters' }),
  METRICS_PORT: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : Number(v)))
    .refine((n) => n === undefined || (Number.isInteger(n) && n >= 1 && n <= 65535), { message: 'must be a port number from 1 to 65535' }),
  LLM_BASE_URL: optionalUrl(['http', 'https']),
  LLM_MODEL: z.string().trim().default(''),
  LLM_API_KEY: z.string().trim().default(''),
  EMBEDDINGS_URL: optionalUrl(['http', 'https']),
  EMBEDDINGS_MODEL: z.string().trim().default(''),
  EMBEDDINGS_API_KEY: z.string().trim().default(''),
  DB_POOL_MAX: intInRange(10, 1, 1000),
  DB_CONNECT_TIMEOUT_MS: intInRange(5000, 100, 600_000),
  DB_STATEMENT_TIMEOUT_MS: intInRange(15_000, 100, 3_600_000),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: intInRange(60_000, 100, 3_600_000),
  DB_IDLE_TIMEOUT_MS: intInRange(30_000, 100, 3_600_000),
  DB_KEEPALIVE_DELAY_MS: intInRange(10_000, 100, 3_600_000),
  READYZ_TIMEOUT_MS: intInRange(2000, 100, 60_000),
  SHUTDOWN_GRACE_MS: intInRange(30_000, 1000, 3_600_000),
  UPLOADS_PER_VISITOR_HOUR: intInRange(20, 1, 1_000_000),
  UPLOADS_PER_VISITOR_DAY: intInRange(60, 1, 1_000_000),
  UPLOAD_MB_PER_VISITOR_HOUR: intInRange(40, 1, 1_000_000),
  UPLOAD_MB_PER_VISITOR_DAY: intInRange(100, 1, 1_000_000),
  UPLOADS_PER_ACCOUNT_HOUR: intInRange(500, 1, 1_000_000),
  UPLOADS_PER_ACCOUNT_DAY: intInRange(3000, 1, 1_000_000),
  UPLOAD_MB_PER_ACCOUNT_HOUR: intInRange(1024, 1, 1_000_000),
  UPLOAD_MB_PER_ACCOUNT_DAY: intInRange(5120, 1, 1_000_000),
  IMAGE_MAX_MEGAPIXELS: intInRange(40, 1, 1000),
  IMAGE_MAX_SIDE: intInRange(12_000, 16, 1_000_000),
  UPLOAD_ABANDONED_MINUTES: intInRange(60, 1, 10_080),
  /** Let outbound calls (webhooks, crawler) reach private and loopback addresses (services/outbound.ts). */
  /** Calls one API key may make per minute (issue 14). */
  API_KEY_LIMIT_PER_MINUTE: intInRange(600, 1, 10_000_000),
  /** Webhooks (issue 14): first retry delay (doubled each time), attempts before a delivery fails, minutes of failing before an endpoint is paused. */
  WEBHOOK_RETRY_BASE_MS: intInRange(30_000, 10, 3_600_000),
  WEBHOOK_MAX_ATTEMPTS: intInRange(8, 1, 30),
  WEBHOOK_PAUSE_AFTER_MINUTES: intInRange(1440, 0, 525_600),
  WEBHOOK_TIMEOUT_MS: intInRange(10_000, 100, 120_000),
  OUTBOUND_ALLOW_PRIVATE: z.enum(['true', 'false'], { message: 'must be true or false' }).default('false'),
  /** Issue 14: new owners verify their email (payments and webhooks wait for it); false: nobody is asked. */
  EMAIL_VERIFICATION: z.enum(['true', 'false'], { message: 'must be true or false' }).optional(),
});

export interface Config {
  port: number;
  host: string;
  publicUrl: string | undefined;
  dataDir: string;
  /** SECRETS_KEY: the at-rest key of stored secrets; undefined = DATA_DIR/secrets.key. */
  secretsKey: string | undefined;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  trustProxy: boolean | number | string[];
  consoleOrigins: string[];
  logLevel: string;
  rateLimits: {
    loginPerIp: number;
    /** Failed sign-ins for one email from all IPs (15 min) before only a known device gets through. */
    loginPerEmail: number;
    /** Failed sign-ins for one email from one IP (15 min) before that IP waits. */
    loginPerIpEmail: number;
    registerPerIp: number;
    /** Wrong current passwords per user (15 min) on password change. */
    passwordCheck: number;
    /** Email change requests per user (hour). */
    emailChange: number;
    /** Forgot-password requests per email and per IP (hour); wrong two-factor codes per user (15 min). */
    passwordReset: number;
    passwordResetPerIp: number;
    twoFactor: number;
    /** Calls per API key per minute. */
    apiKeyPerMinute: number;
    prefix: string;
  };
  /** Console sessions end after `idleSeconds` unused, and `maxSeconds` after sign-in whatever the use. */
  sessions: { idleSeconds: number; maxSeconds: number };
  /** The widget's public calls and sockets (PRODUCT.md section 11 "Limits"), shared across nodes through Redis. */
  widgetLimits: WidgetLimitsConfig;
  consoleListPace?: ConsoleListPace;
  widgetWrites: WidgetWritesConfig;
  refusalHold: RefusalHoldConfig;
  /** Card payments: Paystack when secretKey is set, else the built-in sandbox unless `sandbox` is false. */
  paystack: { secretKey: string | undefined; baseUrl: string; currency: string; sandbox: boolean };
  /** Background jobs: run workers in this process; missed-chat delay; retries; email batching. */
  jobs: JobsConfig;
  /** Optional OpenAI-compatible chat endpoint for the AI assistant's wording. */
  llm: LlmConfig | undefined;
  /** Optional OpenAI-compatible embeddings endpoint for the assistant's passage retrieval (issue 17). */
  embeddings: LlmConfig | undefined;
  /** PostgreSQL pool size and timeouts (DB_*, READYZ_TIMEOUT_MS): a lost database fails calls fast. */
  database: PoolOptions;
  /** Agent replies emailed to away visitors: replies within batchSeconds of the first make one email. */
  visitorReplies: { batchSeconds: number };
  /** Uploaded files: where they live, budgets, image limits, cleanup (services/storage.ts). */
  uploads: UploadsConfig;
  /** /metrics: a bearer token, and/or its own port; with neither, loopback only (routes/health/metrics.ts). */
  metrics: { token: string | undefined; port: number | undefined };
  /** The SSRF guard's policy for every call to a URL someone else chose (services/outbound.ts). */
  outbound: { allowPrivate: boolean };
  /** On SIGTERM the node drains (readyz 503, sockets moved away in batches) and exits within this. */
  shutdownGraceMs: number;
  /**
   * New owners verify their email before payments and webhooks (EMAIL_VERIFICATION; by default
   * only when SMTP_URL is set: without it no link can reach them, so nobody is asked).
   */
  emailVerification: boolean;
}

export interface WidgetLimitsConfig {
  /** WIDGET_LIMIT_PER_IP: widget calls and socket events per minute from one IP (IPv6: one /64). */
  perIp: number;
  /** WIDGET_LIMIT_PER_VISITOR: calls and socket events per minute of one visitor, over all its tabs. */
  perVisitor: number;
  /** WIDGET_LIMIT_PER_KEY: anonymous calls per minute naming one widget key (new visitors, load events). */
  perKey: number;
  /** WIDGET_NEW_VISITORS_PER_IP: visitors created per hour from one IP. */
  newVisitorsPerIp: number;
  /** WIDGET_SOCKETS_PER_VISITOR: live widget sockets of one visitor; more tabs poll instead. */
  socketsPerVisitor: number;
  /** WIDGET_SOCKETS_PER_IP: live widget sockets from one IP. */
  socketsPerIp: number;
  /**
   * SOCKET_HANDSHAKES_PER_IP: socket handshakes (widget or console) of one IP that one node has
   * upgraded and not yet answered (their CONNECT packet is not in or not yet checked); more are
   * refused before the upgrade. Default 16.
   */
  handshakesPerIp?: number | undefined;
  /**
   * WIDGET_NEW_CHATS_PER_ACCOUNT: new chats per minute of one account (a visitor's first message or
   * offline form when it has no conversation yet); never counts a visitor already chatting. Default 120.
   */
  newChatsPerAccount?: number | undefined;
  /**
   * WIDGET_BURST_*: per-second burst buckets beside the budgets above (services/rateLimit.ts);
   * each unset one is derived from its budget (defaultBurst).
   */
  burst?: { perIp?: number | undefined; perVisitor?: number | undefined; perKey?: number | undefined; newVisitorsPerIp?: number | undefined; newChatsPerAccount?: number | undefined };
}

/**
 * WIDGET_WRITES_PER_ACCOUNT, WIDGET_WRITE_WAIT_MS: each node's share of widget write work per
 * account (db/fair.ts LaneSlots, services/widgetWrites.ts).
 */
export interface WidgetWritesConfig {
  perAccount: number;
  maxWaitMs: number;
  /** WIDGET_WRITE_SHARE: percent of the time each slot may be busy. */
  sharePercent: number;
  /** WIDGET_WRITE_BURST_MS: rest a lane is let off before it keeps to its share. */
  burstMs: number;
}

/**
 * REFUSAL_HOLD_MS, REFUSAL_PAUSE_MS, REFUSAL_HOLD_PER_IP, REFUSAL_HOLD_MAX: connections of calls
 * the node already knew to refuse are held still (plugins/refusalHolds.ts). A large body's
 * connection is held unread for `ms`, then closed; a kept-alive connection's next call is read
 * `pauseMs` after the refusal; a handshake refused before the upgrade is answered `pauseMs` later.
 * At most `perIp` held per client address and `max` per node; past them, or behind a proxy, as before.
 */
export interface RefusalHoldConfig {
  ms: number;
  pauseMs: number;
  perIp: number;
  max: number;
}

/** CONSOLE_LIST_*: the pace of one account's conversation-list calls on each node (db/fair.ts LanePacer). */
export interface ConsoleListPace {
  perSecond: number;
  burst: number;
}

/** An upload budget: files and bytes per hour and per day. */
export interface UploadBudget {
  perHour: number;
  perDay: number;
  bytesPerHour: number;
  bytesPerDay: number;
}

export interface UploadsConfig {
  /** DATA_DIR/storage: every node (and `npm run worker`) reads and writes files there. */
  root: string;
  /** STORAGE_URL: an S3-compatible bucket holds the files instead of `root` (storage/backend.ts). */
  url?: string | undefined;
  /** UPLOADS_PER_VISITOR_*, UPLOAD_MB_PER_VISITOR_*: one widget visitor. */
  visitor: UploadBudget;
  /** UPLOADS_PER_ACCOUNT_*, UPLOAD_MB_PER_ACCOUNT_*: everyone uploading to one account. */
  account: UploadBudget;
  /** IMAGE_MAX_MEGAPIXELS and IMAGE_MAX_SIDE, read from the image's header. */
  maxPixels: number;
  maxSide: number;
  /** UPLOAD_ABANDONED_MINUTES: a file nothing refers to after this long is removed. */
  abandonedAfterMs: number;
  /** Redis key prefix of the upload budgets: RATE_LIMIT_PREFIX:upload (tests make it unique). */
  budgetPrefix: string;
}

export interface LlmConfig {
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  /** Milliseconds before giving up (default 8000). */
  timeoutMs?: number | undefined;
}

export interface JobsConfig {
  /** JOBS_WORKERS: run the workers in the server process (false when `npm run worker` runs them). */
  workers: boolean;
  /** MISSED_CHAT_DELAY_SECONDS: how long a visitor message may stay unanswered. */
  missedChatDelaySeconds: number;
  /** JOB_ATTEMPTS: runs before a job is kept as failed. */
  attempts: number;
  /** JOB_BACKOFF_MS: first retry delay; doubled on each retry. */
  backoffMs: number;
  /** At most one email per conversation and kind within this window. */
  batchWindowSeconds: number;
  /** BullMQ key prefix (tests use a unique one). */
  queuePrefix: string;
  /** In-process runner and outbox relay: how often the database is polled for due jobs. */
  pollMs: number;
  /** OUTBOX_CHECK_SECONDS: a job relayed this long ago and not finished is checked with the queue (lost: relayed again). */
  outboxCheckSeconds: number;
  /** The relay treats a queue that does not answer within this as down (milliseconds). */
  relayTimeoutMs: number;
  /** NOTIFY_EMAIL_BUDGET: notification emails per account within NOTIFY_EMAIL_BUDGET_SECONDS; the rest go in a digest. */
  emailBudget: number;
  emailBudgetSeconds: number;
  /** NOTIFY_DIGEST_SECONDS: at most one digest email per account this often. */
  digestSeconds: number;
  /** Outbound webhook deliveries (server/webhooks/deliver.ts). */
  webhooks: WebhookSettings;
}

export interface WebhookSettings {
  retryBaseMs: number;
  maxAttempts: number;
  /** An endpoint failing this long (every attempt since) is paused and its owner emailed. */
  pauseAfterMs: number;
  timeoutMs: number;
  /** The SSRF guard's policy (OUTBOUND_ALLOW_PRIVATE). */
  outbound: { allowPrivate: boolean };
}

export class ConfigError extends Error {}

const MB = 1024 * 1024;

/** The base of links Parley gives out (emails): PUBLIC_URL, or localhost with the port. */
export function publicUrlOf(config: Config): string {
  return config.publicUrl ?? `http://localhost:${config.port}`;
}

function parseTrustProxy(value: string): boolean | number | string[] {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    dataDir: path.resolve(e.DATA_DIR),
    secretsKey: e.SECRETS_KEY,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    consoleOrigins: e.CONSOLE_ORIGINS.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    logLevel: e.LOG_LEVEL,
    rateLimits: {
      loginPerIp: e.LOGIN_LIMIT_PER_IP,
      loginPerEmail: e.LOGIN_LIMIT_PER_EMAIL,
      registerPerIp: e.REGISTER_LIMIT_PER_IP,
      loginPerIpEmail: e.LOGIN_LIMIT_PER_IP_EMAIL,
      passwordCheck: e.PASSWORD_CHECK_LIMIT,
      emailChange: e.EMAIL_CHANGE_LIMIT,
      passwordReset: e.PASSWORD_RESET_LIMIT,
      passwordResetPerIp: e.PASSWORD_RESET_LIMIT_PER_IP,
      twoFactor: e.TWO_FACTOR_LIMIT,
      apiKeyPerMinute: e.API_KEY_LIMIT_PER_MINUTE,
      prefix: e.RATE_LIMIT_PREFIX,
    },
    widgetLimits: {
      perIp: e.WIDGET_LIMIT_PER_IP,
      perVisitor: e.WIDGET_LIMIT_PER_VISITOR,
      perKey: e.WIDGET_LIMIT_PER_KEY,
      newVisitorsPerIp: e.WIDGET_NEW_VISITORS_PER_IP,
      socketsPerVisitor: e.WIDGET_SOCKETS_PER_VISITOR,
      socketsPerIp: e.WIDGET_SOCKETS_PER_IP,
      handshakesPerIp: e.SOCKET_HANDSHAKES_PER_IP,
      newChatsPerAccount: e.WIDGET_NEW_CHATS_PER_ACCOUNT,
      burst: {
        perIp: e.WIDGET_BURST_PER_IP,
        perVisitor: e.WIDGET_BURST_PER_VISITOR,
        perKey: e.WIDGET_BURST_PER_KEY,
        newVisitorsPerIp: e.WIDGET_NEW_VISITORS_BURST_PER_IP,
        newChatsPerAccount: e.WIDGET_NEW_CHATS_BURST,
      },
    },
    consoleListPace: { perSecond: e.CONSOLE_LIST_PER_SECOND, burst: e.CONSOLE_LIST_BURST },
    widgetWrites: { perAccount: e.WIDGET_WRITES_PER_ACCOUNT, maxWaitMs: e.WIDGET_WRITE_WAIT_MS, sharePercent: e.WIDGET_WRITE_SHARE, burstMs: e.WIDGET_WRITE_BURST_MS },
    refusalHold: { ms: e.REFUSAL_HOLD_MS, pauseMs: e.REFUSAL_PAUSE_MS, perIp: e.REFUSAL_HOLD_PER_IP, max: e.REFUSAL_HOLD_MAX },
    sessions: { idleSeconds: e.SESSION_IDLE_SECONDS, maxSeconds: e.SESSION_MAX_SECONDS },
    paystack: {
      secretKey: e.PAYSTACK_SECRET_KEY,
      baseUrl: (e.PAYSTACK_BASE_URL ?? 'https://api.paystack.co').replace(/\/+$/, ''),
      currency: e.PAYMENT_CURRENCY,
      sandbox: e.PAYMENT_SANDBOX === 'true',
    },
    jobs: {
      workers: e.JOBS_WORKERS === 'true',
      missedChatDelaySeconds: e.MISSED_CHAT_DELAY_SECONDS,
      attempts: e.JOB_ATTEMPTS,
      backoffMs: e.JOB_BACKOFF_MS,
      batchWindowSeconds: 600,
      queuePrefix: 'parley',
      pollMs: 1000,
      outboxCheckSeconds: e.OUTBOX_CHECK_SECONDS,
      relayTimeoutMs: 5000,
      emailBudget: e.NOTIFY_EMAIL_BUDGET,
      emailBudgetSeconds: e.NOTIFY_EMAIL_BUDGET_SECONDS,
      digestSeconds: e.NOTIFY_DIGEST_SECONDS,
      webhooks: {
        retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
        maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
        pauseAfterMs: e.WEBHOOK_PAUSE_AFTER_MINUTES * 60_000,
        timeoutMs: e.WEBHOOK_TIMEOUT_MS,
        outbound: { allowPrivate: e.OUTBOUND_ALLOW_PRIVATE === 'true' },
      },
    },
    visitorReplies: { batchSeconds: e.VISITOR_REPLY_BATCH_SECONDS },
    uploads: {
      root: path.join(path.resolve(e.DATA_DIR), 'storage'),
      url: e.STORAGE_URL,
      visitor: {
        perHour: e.UPLOADS_PER_VISITOR_HOUR,
        perDay: e.UPLOADS_PER_VISITOR_DAY,
        bytesPerHour: e.UPLOAD_MB_PER_VISITOR_HOUR * MB,
        bytesPerDay: e.UPLOAD_MB_PER_VISITOR_DAY * MB,
      },
      account: {
        perHour: e.UPLOADS_PER_ACCOUNT_HOUR,
        perDay: e.UPLOADS_PER_ACCOUNT_DAY,
        bytesPerHour: e.UPLOAD_MB_PER_ACCOUNT_HOUR * MB,
        bytesPerDay: e.UPLOAD_MB_PER_ACCOUNT_DAY * MB,
      },
      maxPixels: e.IMAGE_MAX_MEGAPIXELS * 1_000_000,
      maxSide: e.IMAGE_MAX_SIDE,
      abandonedAfterMs: e.UPLOAD_ABANDONED_MINUTES * 60_000,
      budgetPrefix: `${e.RATE_LIMIT_PREFIX}:upload`,
    },
    metrics: { token: e.METRICS_TOKEN, port: e.METRICS_PORT },
    outbound: { allowPrivate: e.OUTBOUND_ALLOW_PRIVATE === 'true' },
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    emailVerification: e.EMAIL_VERIFICATION === undefined ? e.SMTP_URL !== undefined : e.EMAIL_VERIFICATION === 'true',
    llm: e.LLM_BASE_URL ? { baseUrl: e.LLM_BASE_URL, model: e.LLM_MODEL || 'default', apiKey: e.LLM_API_KEY || undefined } : undefined,
    embeddings: e.EMBEDDINGS_URL ? { baseUrl: e.EMBEDDINGS_URL, model: e.EMBEDDINGS_MODEL || 'default', apiKey: e.EMBEDDINGS_API_KEY || undefined } : undefined,
    database: {
      poolMax: e.DB_POOL_MAX,
      connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
      idleInTransactionTimeoutMs: e.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      idleTimeoutMs: e.DB_IDLE_TIMEOUT_MS,
      keepAliveDelayMs: e.DB_KEEPALIVE_DELAY_MS,
      readyTimeoutMs: e.READYZ_TIMEOUT_MS,
    },
  };
}

/** For the entry points (start, worker, migrate): a bad configuration prints its message and exits. */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(e.message);
    process.exit(1);
  }
}
