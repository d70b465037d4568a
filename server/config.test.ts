import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('configuration', () => {
  it('needs nothing: embedded database in ./data on port 3000', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.dataDir.endsWith('/data')).toBe(true);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.redisUrl).toBeUndefined();
    expect(c.paystack.secretKey).toBeUndefined();
    expect(c.jobs.missedChatDelaySeconds).toBe(180);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
    [{ SMTP_URL: 'mail.example.com' }, 'SMTP_URL'],
    [{ PAYMENT_CURRENCY: 'dollars' }, 'PAYMENT_CURRENCY'],
    [{ JOBS_WORKERS: 'yes' }, 'JOBS_WORKERS'],
  ])('refuses %o with a message naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid configuration:\\n\\s+${name}:`));
  });

  it('asks new owners to verify their email only when mail can reach them, unless told', () => {
    expect(loadConfig({}).emailVerification).toBe(false);
    expect(loadConfig({ SMTP_URL: 'smtp://mail.example.com:587' }).emailVerification).toBe(true);
    expect(loadConfig({ SMTP_URL: 'smtp://mail.example.com:587', EMAIL_VERIFICATION: 'false' }).emailVerification).toBe(false);
    expect(loadConfig({ EMAIL_VERIFICATION: 'true' }).emailVerification).toBe(true);
    expect(() => loadConfig({ EMAIL_VERIFICATION: 'yes' })).toThrow(/EMAIL_VERIFICATION/);
  });

  it('reads trusted proxies as a flag, a hop count or a list', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
  });
});
