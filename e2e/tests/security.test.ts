import { Secret, TOTP } from 'otpauth';
import { afterAll, describe, expect, inject, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { apiCall, base, createVisitor, integrationSnippet, registerOwner, visitorSays } from '../support/api';
import { closeBrowser, newSession, tokenOf, visible, waitForPath } from '../support/browser';
import { mailedLink, mailsTo } from '../support/mail';

afterAll(closeBrowser);

/** The authenticator app's code `steps` periods from now. */
const codeOf = (secret: string, steps = 0) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * 30_000 });

describe('account security (issue 14)', () => {
  it('sets up two-factor in Settings > Security (scan, confirm, recovery codes once), then signs in with a code', async () => {
    const owner = await registerOwner('Tara Twofactor');
    const { page, pageErrors } = await newSession({ token: owner.token });
    await page.goto(`${base()}/settings`);
    await page.getByRole('link', { name: 'Security' }).click();
    await waitForPath(page, '/settings/security');
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await visible(page.getByAltText('QR code for your authenticator app'));
    const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    await page.getByLabel('Code from the app').fill(codeOf(secret));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await visible(codes.first());
    expect(await codes.count()).toBe(10);
    await page.getByRole('button', { name: 'I saved my recovery codes' }).click();
    await visible(page.getByText('On · 10 recovery codes left'));
    expect(pageErrors).toEqual([]);

    // A new browser: password, then the code.
    const fresh = await newSession();
    await fresh.page.goto(`${base()}/login`);
    await fresh.page.getByLabel('Email', { exact: true }).fill(owner.email);
    await fresh.page.getByLabel('Password', { exact: true }).fill(owner.password);
    await fresh.page.getByRole('button', { name: 'Sign In' }).click();
    await visible(fresh.page.getByRole('heading', { name: 'Two-factor sign-in' }));
    expect(await tokenOf(fresh.page)).toBeNull();
    await fresh.page.getByLabel('Code', { exact: true }).fill('000000');
    await fresh.page.getByRole('button', { name: 'Verify' }).click();
    await visible(fresh.page.getByText('The code is not valid'));
    await fresh.page.getByLabel('Code', { exact: true }).fill(codeOf(secret, 1));
    await fresh.page.getByRole('button', { name: 'Verify' }).click();
    await waitForPath(fresh.page, '/dashboard');
    const token = await tokenOf(fresh.page);
    expect((await apiCall('GET', '/api/vms/user', { token: token! })).status).toBe(200);
    expect(fresh.pageErrors).toEqual([]);
  });

  it('resets a forgotten password through the emailed link, signing out the old sessions', async () => {
    const owner = await registerOwner('Rene Reset');
    const { page, pageErrors } = await newSession();
    await page.goto(`${base()}/login`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await waitForPath(page, '/forgot-password');
    // The screen's own form (the sign-in form's Email field stays until its chunk has loaded).
    const form = await visible(page.getByRole('form', { name: 'Forgot password' }));
    await form.getByLabel('Email', { exact: true }).fill(owner.email);
    await form.getByRole('button', { name: 'Send reset link' }).click();
    await visible(page.getByText(/If an account uses this email, we sent it a link/));

    // Delivered by SMTP (the global setup's smtp-server), not written to DATA_DIR/mail.
    const link = await mailedLink(owner.email, '/reset-password');
    const mails = await mailsTo(owner.email);
    const reset = mails.filter((m) => /^Subject: Reset your Parley password/m.test(m));
    expect(reset).toHaveLength(1);
    expect(reset[0]).toContain(link);
    expect(reset[0]).toContain('The link works once, for 30 minutes.');
    expect(fs.existsSync(path.join(inject('dataDir'), 'mail'))).toBe(false);
    await page.goto(`${base()}${link}`);
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByLabel('Confirm new password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await visible(page.getByText('Password must be at least 8 characters'));
    await page.getByLabel('New password', { exact: true }).fill('Brand-n3w-pass!');
    await page.getByLabel('Confirm new password', { exact: true }).fill('Brand-n3w-pass!');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await visible(page.getByText('Your password was changed. Sign in with your new password.'));
    expect((await apiCall('GET', '/api/vms/user', { token: owner.token })).status).toBe(401);

    await page.getByRole('button', { name: 'Sign in' }).click();
    await waitForPath(page, '/login');
    await page.getByLabel('Email', { exact: true }).fill(owner.email);
    await page.getByLabel('Password', { exact: true }).fill('Brand-n3w-pass!');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await waitForPath(page, '/dashboard');
    expect(pageErrors).toEqual([]);
  });

  it('exports a visitor’s data as a JSON download and erases the visitor, from Settings > Security', async () => {
    const owner = await registerOwner('Greta Gdpr');
    const { key } = await integrationSnippet(owner.token);
    const visitor = await createVisitor(key, { name: 'Vic Visitor', email: `vic-${Date.now()}@example.com` });
    await visitorSays(visitor, 'Please delete my data');
    const { page, pageErrors, dialogs } = await newSession({ token: owner.token });
    await page.goto(`${base()}/settings/security`);
    const card = page.getByRole('region', { name: "A visitor's data" });
    await card.getByLabel('Name or email').fill('Vic');
    await card.getByRole('button', { name: 'Find' }).click();
    await visible(card.getByText('Vic Visitor'));

    const [download] = await Promise.all([page.waitForEvent('download'), card.getByRole('button', { name: 'Export' }).click()]);
    expect(download.suggestedFilename()).toBe(`visitor-${visitor.id}.json`);
    const doc = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
    expect(doc.visitor.name).toBe('Vic Visitor');
    expect(doc.conversations[0].messages.map((m: { message: string }) => m.message)).toContain('Please delete my data');

    await card.getByRole('button', { name: 'Erase' }).click();
    await visible(card.getByText('Vic Visitor was erased.'));
    expect(dialogs.map((d) => d.type)).toEqual(['confirm']); // asked first (the session accepts it)
    expect((await apiCall('GET', `/api/vms/visitor/${visitor.id}/export`, { token: owner.token })).status).toBe(404);
    const log = await apiCall<{ data: { action: string }[] }>('GET', '/api/vms/audit-log', { token: owner.token });
    expect(log.body.data.map((e) => e.action)).toEqual(expect.arrayContaining(['visitor.exported', 'visitor.erased']));
    expect(pageErrors).toEqual([]);
  });
});
