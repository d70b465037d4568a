import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { openPglite } from '../db/client.js';
import { messages } from '../db/schema.js';
import { testConfig } from '../test/harness.js';
import { PARAMS_REDACTED } from './requestLog.js';

/**
 * Issue 11: a flood of refused calls must not write a log line per call (at the default level,
 * info, Fastify wrote two per request). Completed requests get one line each, with the URL.
 */
describe('request log lines', () => {
  const lines: Record<string, unknown>[] = [];
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-reqlog-'));
  });
  afterAll(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('one line per completed request, none per 429, the refusals summed up in one line', async () => {
    const database = await openPglite(undefined);
    await database.migrate();
    const config = testConfig(dataDir, { LOG_LEVEL: 'info', WIDGET_LIMIT_PER_IP: '3' });
    const app = await buildApp({ config, database, logStream: { write: (line) => void lines.push(JSON.parse(line)) } });
    await app.ready();
    const statuses: number[] = [];
    for (let i = 0; i < 23; i++) {
      const res = await app.inject({ method: 'GET', url: `/api/widget/messages?n=${i}`, remoteAddress: '203.0.113.40' });
      statuses.push(res.statusCode);
    }
    // Three calls within the IP's budget (no visitor token: 401), then twenty refused.
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    const requestLines = lines.filter((l) => typeof l.reqId === 'string');
    expect(requestLines.map((l) => l.msg)).toEqual(['request completed', 'request completed', 'request completed']);
    expect(requestLines.map((l) => (l.req as { url: string }).url)).toEqual(['/api/widget/messages?n=0', '/api/widget/messages?n=1', '/api/widget/messages?n=2']);
    expect(requestLines.map((l) => (l.res as { statusCode: number }).statusCode)).toEqual([401, 401, 401]);
    expect(lines.some((l) => l.msg === 'rate limits refused 20 calls')).toBe(false); // summed up later, not per call
    await app.close();
    await database.close();
    const summary = lines.filter((l) => typeof l.msg === 'string' && (l.msg as string).startsWith('rate limits refused'));
    expect(summary).toHaveLength(1);
    expect(summary[0]).toMatchObject({ level: 30, msg: 'rate limits refused 20 calls', refused: { 'GET /api/widget/messages': 20 } });
  });

  it("logs a failed statement without its parameters: what a visitor wrote stays out of the log", async () => {
    const database = await openPglite(undefined);
    await database.migrate();
    const errorLines: Record<string, unknown>[] = [];
    const app = await buildApp({ config: testConfig(dataDir, { LOG_LEVEL: 'error' }), database, logStream: { write: (line) => void errorLines.push(JSON.parse(line)) } });
    await app.ready();
    const secret = 'my door code is 4711, mail me at carol@example.com';
    // A real failure of drizzle's: the message's conversation does not exist (foreign key).
    const err = await app.db
      .insert(messages)
      .values({ accountId: '00000000-0000-4000-8000-000000000000', conversationId: 999_999, senderType: 'visitor', message: secret })
      .then(() => undefined, (e: unknown) => e);
    expect(String((err as Error).message)).toContain(secret); // drizzle's own message carries it
    app.log.error({ err }, 'request failed');
    await app.close();
    await database.close();
    const line = errorLines.find((l) => l.msg === 'request failed');
    expect(line).toBeDefined();
    expect(JSON.stringify(line)).not.toContain('4711');
    expect(JSON.stringify(line)).not.toContain('carol@example.com');
    const logged = line!.err as { message: string; stack: string; params: unknown };
    expect(logged.params).toBe(PARAMS_REDACTED);
    expect(logged.message).toMatch(/^Failed query: insert into "messages"/); // the statement stays
    expect(logged.message).toContain(`params: ${PARAMS_REDACTED}`);
    expect(logged.stack).toContain(`params: ${PARAMS_REDACTED}`);
  });
});
