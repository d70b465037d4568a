import compress from '@fastify/compress';
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import multipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import fs from 'node:fs/promises';
import type { Counter, Histogram } from 'prom-client';
import type { RedisClientType } from 'redis';
import { CHAT_IMAGE_MAX_BYTES } from '@parley/shared';
import type { Config } from './config.js';
import type { Database, Db } from './db/client.js';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandler } from './errors.js';
import { registerBodyParsers } from './plugins/bodyParsers.js';
import { registerDbLanes } from './plugins/dbLanes.js';
import { RequestLog, loggerOptions } from './plugins/requestLog.js';
import { createRefusalGate, installRefusalGate, type RefusalGate } from './plugins/refusalGate.js';
import { RefusalHolds } from './plugins/refusalHolds.js';
import { checkedSerializerCompiler, registerOpenApi } from './plugins/openapi.js';
import { TOO_MANY_REQUESTS, createLimiter, createWidgetLimits, type Limiter, type WidgetLimits } from './services/rateLimit.js';
import { DomainEvents } from './services/domainEvents.js';
import { openSecretBox, type SecretBox } from './services/secrets.js';
import { startSessionExpiry } from './services/sessions.js';
import { Storage } from './services/storage.js';
import { scheduleStorageSweep, startRecordingExisting } from './storage/schedule.js';
import authRoutes from './routes/auth/auth.js';
import healthRoutes from './routes/health/health.js';
import { registerWebApp } from './plugins/webApp.js';
import conversationsRoutes from './routes/conversations/conversations.js';
import lifecycleRoutes from './routes/conversations/lifecycle.js';
import conversationSettingsRoutes from './routes/settings/conversationSettings.js';
import businessHoursRoutes from './routes/businessHours/businessHours.js';
import visitorsRoutes from './routes/visitors/visitors.js';
import widgetRoutes, { earlyQuietPolls } from './routes/widget/widget.js';
import offlineRoutes from './routes/widget/offline.js';
import aiAnswerRoutes from './routes/widget/aiAnswers.js';
import publicWidgetSettingsRoutes from './routes/widget/publicSettings.js';
import chatbotRoutes from './routes/chatbot/chatbot.js';
import chatbotSourceRoutes from './routes/chatbot/sources.js';
import chatbotSourceUsageRoutes from './routes/chatbot/sourceUsage.js';
import statsRoutes from './routes/stats/stats.js';
import paymentsRoutes from './routes/payments/payments.js';
import chatLinkRoutes from './routes/chatLink/chatLink.js';
import { registerJobs } from './jobs/plugin.js';
import { registerMetrics } from './metrics/metrics.js';
import { registerAi } from './ai/plugin.js';
import { registerRealtime } from './realtime/plugin.js';
import { registerDrain } from './realtime/drain.js';
import { NODE_ID } from './outbox/pushRelay.js';
import settingsRoutes from './routes/settings/settings.js';
import integrationRoutes from './routes/integration/integration.js';
import plansRoutes from './routes/plans/plans.js';
import teamRoutes from './routes/team/team.js';
import storageRoutes from './routes/storage/storage.js';
import notesRoutes from './routes/conversations/notes.js';
import contextRoutes from './routes/conversations/context.js';
import cannedRepliesRoutes from './routes/cannedReplies/cannedReplies.js';
import labelsRoutes from './routes/labels/labels.js';
import auditRoutes from './routes/audit/audit.js';
import sessionsRoutes from './routes/sessions/sessions.js';
import gdprRoutes from './routes/gdpr/gdpr.js';
import { consoleRatingRoutes, widgetRatingRoutes } from './routes/ratings/ratings.js';
import transcriptRoutes from './routes/transcripts/transcripts.js';
import { consoleTriggerRoutes, widgetTriggerRoutes } from './routes/triggers/triggers.js';
import apiKeysRoutes from './routes/apiKeys/apiKeys.js';
import storageFileRoutes, { storageHeaders } from './routes/storage/files.js';
import widgetLanguageRoutes from './routes/widget/language.js';
import webhooksRoutes from './routes/webhooks/webhooks.js';
import { subscribeWebhooks } from './webhooks/subscribe.js';
import type { LaneSlots } from './db/fair.js';
import { createWidgetWrites } from './services/widgetWrites.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: Database;
    db: Db;
    storage: Storage;
    events: DomainEvents;
    /** Seals and opens the TOTP and webhook secrets stored in the database (services/secrets.ts). */
    secrets: SecretBox;
    redis: RedisClientType | undefined;
    limiters: {
      loginIp: Limiter;
      loginEmail: Limiter;
      /** Issue 17: a visitor's "Was this helpful?" votes. */
      aiVote: Limiter;
      loginIpEmail: Limiter;
      loginAlert: Limiter;
      registerIp: Limiter;
      passwordCheck: Limiter;
      emailChange: Limiter;
      passwordReset: Limiter;
      passwordResetIp: Limiter;
      twoFactor: Limiter;
      /** Every call made with one API key (issue 14). */
      apiKey: Limiter;
    };
    /** The widget's limits per IP, visitor and widget key, and its socket caps (PRODUCT.md section 11). */
    widgetLimits: WidgetLimits;
    /** Answers widget calls already known to be refused before Fastify handles them (plugins/refusalGate.ts). */
    refusalGate: RefusalGate;
    /** Connections of refused calls and handshakes held still for a while (plugins/refusalHolds.ts). */
    refusalHolds: RefusalHolds;
    /** Each node's share of widget write work per account (services/widgetWrites.ts). */
    widgetWrites: LaneSlots;
  }
}

export interface AppOptions {
  config: Config;
  database: Database;
  /** Logger on/off; tests keep it quiet. */
  logger?: boolean;
  /** Where log lines go (default stdout): tests read them. */
  logStream?: { write(line: string): void };
}

/** Widget calls are public and answer any origin; console calls only the console's origins. */
const PUBLIC_CORS_PREFIXES = ['/api/widget/', '/api/widget-settings', '/widget'];

/** The gate's refusals in the same figures as the hooks' (parley_rate_limit_refusals_total, the HTTP durations). */
function countGateRefusals(app: FastifyInstance, requestLog: RequestLog): void {
  const refusals = app.metrics.registry.getSingleMetric('parley_rate_limit_refusals_total') as Counter<'limit'> | undefined;
  const http = app.metrics.registry.getSingleMetric('parley_http_request_duration_seconds') as Histogram<'method' | 'route' | 'status'> | undefined;
  app.refusalGate.onRefused((limit, method, route) => {
    requestLog.countRefusal(`${method} ${route}`, app.log);
    refusals?.inc({ limit });
    http?.observe({ method, route, status: '429' }, 0);
  });
}

/** Builds the whole app without listening (tests use app.inject). */
export async function buildApp({ config, database, logger = true, logStream }: AppOptions): Promise<FastifyInstance> {
  const tp = config.trustProxy;
  // One log line per request, none per call refused by a rate limit (plugins/requestLog.ts).
  const requestLog = new RequestLog();
  const app = Fastify({
    logger: logger ? { ...loggerOptions(config.logLevel), ...(logStream ? { stream: logStream } : {}) } : false,
    logController: requestLog,
    trustProxy: typeof tp === 'number' ? (_addr: string, hop: number) => hop < tp : tp,
    bodyLimit: 1024 * 1024,
    // Errors before routing (bad URL, long parameter, malformed HTTP) answer the envelope too.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  });
  // Before Fastify: a call of an IP or visitor whose widget budget is known spent is answered 429 at once.
  const refusalHolds = new RefusalHolds(config.refusalHold);
  app.decorate('refusalHolds', refusalHolds);
  // A closing node does not wait for the connections it holds.
  app.addHook('preClose', (done) => {
    refusalHolds.releaseAll();
    done();
  });
  const refusalGate = createRefusalGate({
    trustProxy: config.trustProxy,
    limits: () => (app.hasDecorator('widgetLimits') ? app.widgetLimits : undefined),
    holds: refusalHolds,
  });
  installRefusalGate(app, refusalGate);
  app.decorate('refusalGate', refusalGate);
  registerDbLanes(app); // first hook: every request's database calls wait in its tenant's lane
  app.addHook('onClose', async () => requestLog.flush()); // the refusals not summed up yet
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(checkedSerializerCompiler);

  let redis: RedisClientType | undefined;
  if (config.redisUrl) {
    // While Redis is down its commands fail at once instead of waiting in an offline queue: the
    // rate limits fall back to this node's memory and a chat is still stored (its jobs wait in the outbox).
    // Named after the node: a live node has this connection open (outbox/pushRelay.ts checks it).
    // Loaded only with REDIS_URL: the embedded default never pays for the client's import.
    const { createClient } = await import('redis');
    redis = createClient({ url: config.redisUrl, disableOfflineQueue: true, name: `parley-node:${NODE_ID}` });
    redis.on('error', (err) => app.log.warn({ err }, 'redis error'));
    await redis.connect();
    app.addHook('onClose', async () => {
      if (redis?.isReady) await redis.quit().catch(() => {});
      else if (redis?.isOpen) redis.destroy();
    });
  }

  app.decorate('config', config);
  app.decorate('database', database);
  app.decorate('db', database.db);
  // Fails closed before any route answers when the key is not the one the stored secrets use.
  app.decorate('secrets', await openSecretBox(config, database.db));
  const storage = new Storage({
    db: database.db,
    config: config.uploads,
    redis,
    log: app.log,
    // Each stored file queues its account's cleanup (one pending sweep per account).
    afterSave: (accountId) => scheduleStorageSweep(app, accountId),
  });
  await fs.mkdir(storage.root, { recursive: true }); // the static file server needs it to exist
  app.decorate('storage', storage);
  app.addHook('onClose', () => storage.close());
  app.decorate('redis', redis);
  app.decorate('events', new DomainEvents(app.log));
  // Background reactions (learning, auto-answers, mail) finish before anything closes.
  app.addHook('preClose', () => app.events.drain());
  const { prefix } = config.rateLimits;
  app.decorate('limiters', {
    loginIp: createLimiter('login-ip', config.rateLimits.loginPerIp, 60, redis, { prefix }),
    loginEmail: createLimiter('login-email', config.rateLimits.loginPerEmail, 15 * 60, redis, { prefix }),
    registerIp: createLimiter('register-ip', config.rateLimits.registerPerIp, 60 * 60, redis, { prefix }),
    loginIpEmail: createLimiter('login-ip-email', config.rateLimits.loginPerIpEmail, 15 * 60, redis, { prefix }),
    loginAlert: createLimiter('login-alert', 1, 15 * 60, redis, { prefix }),
    aiVote: createLimiter('ai-vote', 20, 60 * 60, redis, { prefix, message: TOO_MANY_REQUESTS }),
    passwordCheck: createLimiter('password-check', config.rateLimits.passwordCheck, 15 * 60, redis, { prefix }),
    emailChange: createLimiter('email-change', config.rateLimits.emailChange, 60 * 60, redis, { prefix }),
    passwordReset: createLimiter('password-reset', config.rateLimits.passwordReset, 60 * 60, redis, { prefix }),
    passwordResetIp: createLimiter('password-reset-ip', config.rateLimits.passwordResetPerIp, 60 * 60, redis, { prefix }),
    twoFactor: createLimiter('two-factor', config.rateLimits.twoFactor, 15 * 60, redis, { prefix }),
    apiKey: createLimiter('api-key', config.rateLimits.apiKeyPerMinute, 60, redis, {
      prefix,
      message: 'Too many requests with this API key. Please slow down.',
    }),
  });
  app.decorate('widgetLimits', createWidgetLimits(config.widgetLimits, prefix, redis, (err) => app.log.warn({ err }, 'socket slots: redis unavailable')));
  app.decorate('widgetWrites', createWidgetWrites(config.widgetWrites));
  registerErrorHandler(app);
  registerBodyParsers(app);

  // Text answers (API JSON, index.html) above 1 KB go out brotli or gzip by Accept-Encoding, with
  // Vary; the console's and widget's built files are precompressed (plugins/webApp.ts) and pass
  // through as they are. Socket.IO answers on the raw server, so it is never compressed twice.
  await app.register(compress, { global: true, threshold: 1024, encodings: ['br', 'gzip'], globalDecompression: false });

  await registerOpenApi(app); // GET /api/openapi.json (plugins/openapi.ts)

  const consoleOrigins = new Set([...config.consoleOrigins, ...(config.publicUrl ? [config.publicUrl] : [])]);
  // Both answers are built once (the delegator runs on every request: issue 15's polls).
  const corsFor = (origin: boolean): FastifyCorsOptions => ({ origin, methods: 'GET, POST, PUT, PATCH, DELETE', allowedHeaders: 'Authorization, Content-Type', maxAge: 600 });
  const [corsAllowed, corsRefused] = [corsFor(true), corsFor(false)];
  await app.register(cors, () => (req: FastifyRequest, cb: (e: Error | null, o: FastifyCorsOptions) => void) => {
    const url = req.url ?? '';
    if (PUBLIC_CORS_PREFIXES.some((p) => url.startsWith(p))) return cb(null, corsAllowed);
    const origin = req.headers.origin;
    cb(null, origin !== undefined && consoleOrigins.has(origin) ? corsAllowed : corsRefused);
  });

  await app.register(multipart, {
    limits: { fileSize: CHAT_IMAGE_MAX_BYTES, files: 1, fields: 20, parts: 21 },
  });

  if (app.storage.backend.kind === 'local') {
    await app.register(fastifyStatic, {
      root: app.storage.root,
      prefix: '/storage/',
      decorateReply: false,
      index: false,
      list: false,
      dotfiles: 'deny',
      setHeaders(res, filePath) {
        for (const [name, value] of Object.entries(storageHeaders(filePath, (res as { req?: { url?: string } }).req?.url))) res.setHeader(name, value);
      },
    });
  } else {
    // STORAGE_URL: the files are in a bucket; the node streams them with the same headers.
    await app.register(storageFileRoutes);
  }

  await app.register(healthRoutes);
  await app.register(authRoutes, { prefix: '/api/vms' });
  await app.register(conversationsRoutes, { prefix: '/api/vms' });
  await app.register(lifecycleRoutes, { prefix: '/api/vms' });
  await app.register(visitorsRoutes, { prefix: '/api/vms' });
  await app.register(settingsRoutes, { prefix: '/api/vms' });
  await app.register(conversationSettingsRoutes, { prefix: '/api/vms' });
  await app.register(businessHoursRoutes, { prefix: '/api/vms' });
  await app.register(integrationRoutes, { prefix: '/api/vms' });
  await app.register(teamRoutes, { prefix: '/api/vms' });
  await app.register(statsRoutes, { prefix: '/api/vms' });
  await app.register(storageRoutes, { prefix: '/api/vms' });
  await app.register(widgetLanguageRoutes, { prefix: '/api/vms' });
  await app.register(notesRoutes, { prefix: '/api/vms' });
  await app.register(contextRoutes, { prefix: '/api/vms' });
  await app.register(cannedRepliesRoutes, { prefix: '/api/vms' });
  await app.register(labelsRoutes, { prefix: '/api/vms' });
  await app.register(auditRoutes, { prefix: '/api/vms' });
  await app.register(sessionsRoutes, { prefix: '/api/vms' });
  await app.register(gdprRoutes, { prefix: '/api/vms' });
  await app.register(apiKeysRoutes, { prefix: '/api/vms' });
  await app.register(webhooksRoutes, { prefix: '/api/vms' });
  await app.register(widgetRoutes, { prefix: '/api' });
  await app.register(offlineRoutes, { prefix: '/api' });
  await app.register(aiAnswerRoutes, { prefix: '/api' });
  await app.register(plansRoutes, { prefix: '/api' });
  await app.register(publicWidgetSettingsRoutes, { prefix: '/api' });
  await app.register(chatbotRoutes, { prefix: '/api' });
  await app.register(chatbotSourceRoutes, { prefix: '/api' });
  await app.register(chatbotSourceUsageRoutes, { prefix: '/api' });
  await app.register(paymentsRoutes, { prefix: '/api' });
  await app.register(chatLinkRoutes, { prefix: '/api' });
  // Issue 13, the visitor's side.
  await app.register(widgetRatingRoutes, { prefix: '/api' });
  await app.register(consoleRatingRoutes, { prefix: '/api/vms' });
  await app.register(transcriptRoutes, { prefix: '/api' });
  await app.register(widgetTriggerRoutes, { prefix: '/api' });
  await app.register(consoleTriggerRoutes, { prefix: '/api/vms' });

  // Called directly, not registered: they decorate the app and subscribe to app.events.
  registerMetrics(app);
  countGateRefusals(app, requestLog);
  await registerJobs(app);
  app.addHook('onReady', async () => startRecordingExisting(app));
  await registerAi(app);
  await registerRealtime(app);
  // Polls this node remembers quiet, answered before Fastify (issue 15), in the HTTP durations too.
  const durations = app.metrics.registry.getSingleMetric('parley_http_request_duration_seconds') as Histogram<'method' | 'route' | 'status'> | undefined;
  app.refusalGate.answerEarly(earlyQuietPolls(app, (status, seconds) => durations?.observe({ method: 'GET', route: '/api/widget/messages', status: String(status) }, seconds)));
  registerDrain(app); // SIGTERM: readyz 503, sockets moved away in batches (server/index.ts)
  subscribeWebhooks(app);
  startSessionExpiry(app);

  // Called directly, not registered: its SPA fallback hook must see every request.
  await registerWebApp(app);

  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
