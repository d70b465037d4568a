import fs from 'node:fs/promises';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plans, sandboxCharges } from '../db/schema.js';
import { createMailer, mailDir } from '../services/mail.js';
import { buildAccount, call } from '../test/factories.js';
import { createTestApp, type TestApp } from '../test/harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('DELETE /api/vms/user/delete leaves no trace of the owner', () => {
  it('removes the sandbox charges with the owner email and the written emails of the account', async () => {
    const owner = await buildAccount(t.app, { email: 'Leaving.Owner@example.com' });
    const other = await buildAccount(t.app);
    const [plan] = await t.database.db.select().from(plans).where(eq(plans.code, 'professional'));
    for (const who of [owner, other]) {
      const res = await call(t.app, 'POST', '/api/initialize-payment', { token: who.token, body: { plan_id: plan!.id } });
      expect(res.status).toBe(200);
    }
    // What the notification jobs write without SMTP_URL: one .eml per email in DATA_DIR/mail.
    const mailer = createMailer(t.config, t.app.log);
    const chat = 'Visitor: my door code is 4711';
    await mailer.send({ to: 'leaving.owner@example.com', subject: 'New chat', text: chat, html: `<p>${chat}</p>` });
    await mailer.send({ to: `Owner <${owner.email}>`, subject: 'Missed chat', text: chat, html: `<p>${chat}</p>` });
    await mailer.send({ to: other.email, subject: 'New chat', text: 'kept', html: '<p>kept</p>' });
    mailer.close();
    expect(await fs.readdir(mailDir(t.dataDir))).toHaveLength(3);

    const res = await call(t.app, 'DELETE', '/api/vms/user/delete', { token: owner.token });
    expect(res.status).toBe(200);

    const charges = await t.database.db.select({ email: sandboxCharges.email }).from(sandboxCharges);
    expect(charges.map((c) => c.email)).toEqual([other.email]);
    const left = await fs.readdir(mailDir(t.dataDir));
    expect(left).toHaveLength(1);
    const kept = await fs.readFile(path.join(mailDir(t.dataDir), left[0]!), 'utf8');
    expect(kept).toContain(other.email);
    for (const name of left) {
      const text = (await fs.readFile(path.join(mailDir(t.dataDir), name), 'utf8')).toLowerCase();
      expect(text).not.toContain('leaving.owner@example.com');
    }
  });
});
