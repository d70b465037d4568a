import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { openPglite } from '../db/client.js';
import { testConfig } from '../test/harness.js';

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
});
