import { afterAll, describe, expect, it } from 'vitest';
import { apiCall, base, login, registerOwner, uniqueEmail } from '../support/api';
import { closeBrowser, newSession, tokenOf, visible, waitForPath } from '../support/browser';
import { mailedLink } from '../support/mail';

afterAll(closeBrowser);

describe('settings (journey 5)', () => {
  it('saves widget settings, profile and password, refuses mismatched passwords, and deletes the account', async () => {
    const owner = await registerOwner('Sam Settings');
    const { page, pageErrors } = await newSession({ token: owner.token });
    await page.goto(`${base()}/settings`);

    // Widget settings.
    const widget = page.getByRole('form', { name: 'Widget settings' });
    const widgetName = widget.getByLabel('Widget name', { exact: true });
    await visible(widgetName);
    await widgetName.fill('Sam Support Desk');
    await widget.getByRole('button', { name: /#11998e$/i }).first().click();
    await widget.getByRole('button', { name: 'Save Widget Settings' }).click();
    await visible(page.getByText('Widget settings updated successfully'));
    const saved = await apiCall<{ data: { name: string; color: string } }>('GET', '/api/vms/widget-settings', { token: owner.token });
    expect(saved.body.data).toMatchObject({ name: 'Sam Support Desk', color: '#11998e' });

    // Profile.
    const profile = page.getByRole('form', { name: 'Profile' });
    const newEmail = uniqueEmail('renamed');
    await profile.getByLabel('Name', { exact: true }).fill('Samantha Settings');
    await profile.getByLabel('Email', { exact: true }).fill(newEmail);
    await profile.getByRole('button', { name: 'Update Profile' }).click();
    // The form says where the confirmation went (not a plain "updated"): the email waits for it.
    await visible(page.getByText(`We sent a confirmation link to ${newEmail}. Your sign-in email changes once you open it.`));
    // The name changes at once; the new sign-in email once the link sent to it is opened.
    const before = await apiCall<{ name: string; email: string }>('GET', '/api/vms/user', { token: owner.token });
    expect(before.body).toMatchObject({ name: 'Samantha Settings', email: owner.email });
    const confirm = await mailedLink(newEmail, '/api/vms/user/email/confirm');
    await page.goto(`${base()}${confirm}`);
    await waitForPath(page, '/settings');
    const me = await apiCall<{ name: string; email: string }>('GET', '/api/vms/user', { token: owner.token });
    expect(me.body).toMatchObject({ name: 'Samantha Settings', email: newEmail });

    // Password: mismatch first (nothing sent), then a real change.
    const pw = page.getByRole('form', { name: 'Change password' });
    await pw.getByLabel('Current password', { exact: true }).fill(owner.password);
    await pw.getByLabel('New password', { exact: true }).fill('Brand-new-pass-1');
    await pw.getByLabel('Confirm new password', { exact: true }).fill('Brand-new-pass-2');
    await pw.getByRole('button', { name: 'Update Password' }).click();
    await visible(page.getByText('New passwords do not match').first());
    await login(newEmail, owner.password); // unchanged: nothing was sent
    await pw.getByLabel('Confirm new password', { exact: true }).fill('Brand-new-pass-1');
    await pw.getByRole('button', { name: 'Update Password' }).click();
    await visible(page.getByText('Password updated successfully'));
    await login(newEmail, 'Brand-new-pass-1');
    const wrong = await apiCall('POST', '/api/vms/login', { body: { email: newEmail, password: owner.password } });
    expect(wrong.status).toBeGreaterThanOrEqual(400);

    // Delete account: confirmation dialog -> /login; the old token no longer works.
    const token = await tokenOf(page);
    expect(token).toBeTruthy();
    await page.getByRole('button', { name: 'Delete Account' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete account?' });
    await visible(dialog);
    await dialog.getByRole('button', { name: 'Yes, delete my account' }).click();
    await waitForPath(page, '/login');
    expect(await tokenOf(page)).toBeNull();
    expect((await apiCall('GET', '/api/vms/user', { token: token! })).status).toBe(401);
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});
