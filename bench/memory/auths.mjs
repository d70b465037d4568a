// Widget credentials for many idle sockets: one registered account, visitors inserted straight
// into its database (tokens hashed as server/services/secrets.ts does). Used by memory/run.mjs
// and capacity/sockets.mjs.
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';

export async function parleyAuths(base, dbUrl, count) {
  const password = 'Bench-pass-123!';
  const res = await fetch(`${base}/api/vms/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench Owner', email: `bench-mem-${Date.now()}@example.com`, password, password_confirmation: password }),
  });
  const reg = await res.json();
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(reg)}`);
  const tokens = Array.from({ length: count }, () => randomBytes(32).toString('base64url'));
  const hashes = tokens.map((t) => createHash('sha256').update(t).digest('hex'));
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const { rows } = await db.query('select widget_key from accounts where id = $1', [reg.user.account_id]);
    await db.query(`insert into visitors (account_id, token_hash, name) select $1, h, 'Idle visitor' from unnest($2::text[]) as h`, [reg.user.account_id, hashes]);
    return tokens.map((visitor_token) => ({ widget_key: rows[0].widget_key, visitor_token }));
  } finally {
    await db.end();
  }
}
