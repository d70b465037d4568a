import { afterAll, describe, expect, it } from 'vitest';
import { apiCall, base, PASSWORD, registerOwner, uniqueEmail } from '../support/api';
import { closeBrowser, fieldError, newSession, pathOf, tokenOf, visible, waitForPath } from '../support/browser';

afterAll(closeBrowser);

describe('register and onboarding (journey 1)', () => {
  it('shows every register validation message, registers, then saves the three onboarding steps (Back does not save)', async () => {
    const { page, pageErrors } = await newSession();
    await page.goto(`${base()}/register`);
    const name = page.getByLabel('Full name', { exact: true });
    const email = page.getByLabel('Email', { exact: true });
    const password = page.getByLabel('Password', { exact: true });
    const confirm = page.getByLabel('Confirm password', { exact: true });
    const submit = page.getByRole('button', { name: 'Create Account' });
    await visible(name);

    // Everything empty: the four "required" messages.
    await submit.click();
    await visible(page.getByText('Name is required'));
    expect(await fieldError(page, 'Full name')).toBe('Name is required');
    expect(await fieldError(page, 'Email')).toBe('Email is required');
    expect(await fieldError(page, 'Password')).toBe('Password is required');
    expect(await fieldError(page, 'Confirm password')).toBe('Please confirm your password');

    // Editing a field clears its error.
    await name.fill('A');
    expect(await fieldError(page, 'Full name')).toBe('');

    // Too short / badly formed.
    await email.fill('not-an-email');
    await password.fill('short');
    await confirm.fill('short');
    await submit.click();
    await visible(page.getByText('Name must be at least 2 characters'));
    expect(await fieldError(page, 'Full name')).toBe('Name must be at least 2 characters');
    expect(await fieldError(page, 'Email')).toBe('Please enter a valid email address');
    expect(await fieldError(page, 'Password')).toBe('Password must be at least 8 characters');

    // Mismatch.
    const ownerEmail = uniqueEmail('journey1');
    await name.fill('Rita Register');
    await email.fill(ownerEmail);
    await password.fill(PASSWORD);
    await confirm.fill(`${PASSWORD}x`);
    await submit.click();
    await visible(page.getByText('Passwords do not match'));
    expect(await fieldError(page, 'Confirm password')).toBe('Passwords do not match');
    expect(pathOf(page)).toBe('/register');

    // Success -> /dashboard, token stored.
    await confirm.fill(PASSWORD);
    await submit.click();
    await waitForPath(page, '/dashboard');
    const token = await tokenOf(page);
    expect(token).toBeTruthy();
    const get = async (url: string) => (await apiCall<{ data: Record<string, unknown> }>('GET', url, { token: token! })).body.data;

    // Step 1: /widget-settings.
    await page.goto(`${base()}/widget-settings`);
    const wName = page.getByLabel('Name', { exact: true });
    await visible(wName);
    await wName.fill('Acme Support');
    await page.getByLabel('Title or department', { exact: true }).fill('Customer Care');
    await page.getByRole('button', { name: 'Emerald #11998e' }).click();
    await page.getByRole('button', { name: 'Next' }).click();
    await waitForPath(page, '/greetings');
    const look = await get('/api/vms/widget-settings');
    expect(look).toMatchObject({ name: 'Acme Support', title: 'Customer Care', color: '#11998e' });

    // Step 2: /greetings; first try Back with an edit (not saved), then Next.
    const initial = page.getByLabel('Initial greeting', { exact: true });
    await visible(initial);
    await initial.fill('Draft that must not be saved');
    await page.getByRole('button', { name: 'Back' }).click();
    await waitForPath(page, '/widget-settings');
    expect((await get('/api/vms/greetings')).initial_greeting).not.toBe('Draft that must not be saved');
    await page.reload();
    await visible(page.getByLabel('Name', { exact: true }));
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Acme Support');
    await page.getByRole('button', { name: 'Next' }).click();
    await waitForPath(page, '/greetings');
    await visible(initial);
    expect(await initial.inputValue()).not.toBe('Draft that must not be saved');
    await initial.fill('Welcome to Acme! How can we help?');
    await page.getByLabel('Follow-up greeting (optional)', { exact: true }).fill('Ask us anything.');
    await page.getByRole('button', { name: 'Next' }).click();
    await waitForPath(page, '/account-info');
    expect(await get('/api/vms/greetings')).toMatchObject({ initial_greeting: 'Welcome to Acme! How can we help?', follow_up_greeting: 'Ask us anything.' });

    // Step 3: /account-info; Back with an edit (not saved), then Finish.
    const site = page.getByLabel('Website URL', { exact: true });
    await visible(site);
    await site.fill('https://draft.example');
    await page.getByRole('button', { name: 'Back' }).click();
    await waitForPath(page, '/greetings');
    expect((await get('/api/vms/account-info')).website_url ?? '').not.toBe('https://draft.example');
    await page.reload();
    await visible(initial);
    expect(await initial.inputValue()).toBe('Welcome to Acme! How can we help?');
    await page.getByRole('button', { name: 'Next' }).click();
    await waitForPath(page, '/account-info');
    await visible(site);
    expect(await site.inputValue()).not.toBe('https://draft.example');
    await site.fill('https://acme.example');
    await page.getByLabel('Phone number', { exact: true }).fill('+1 555 123 4567');
    await page.getByLabel('Business location', { exact: true }).fill('Lisbon, Portugal');
    await page.getByRole('button', { name: 'Finish' }).click();
    await waitForPath(page, '/dashboard');
    expect(await get('/api/vms/account-info')).toMatchObject({ website_url: 'https://acme.example', phone_number: '+1 555 123 4567', business_location: 'Lisbon, Portugal' });

    // A reload of each step shows what was saved.
    await page.goto(`${base()}/account-info`);
    await visible(site);
    expect(await site.inputValue()).toBe('https://acme.example');
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});

describe('login errors (journey 2)', () => {
  it('shows each login validation message, and the server error (with an alert) for a wrong password', async () => {
    const owner = await registerOwner('Lena Login');
    const { page, dialogs, pageErrors } = await newSession();
    await page.goto(`${base()}/login`);
    const email = page.getByLabel('Email', { exact: true });
    const password = page.getByLabel('Password', { exact: true });
    const submit = page.getByRole('button', { name: 'Sign In' });
    await visible(email);

    await submit.click();
    await visible(page.getByText('Email is required'));
    expect(await fieldError(page, 'Email')).toBe('Email is required');
    expect(await fieldError(page, 'Password')).toBe('Password is required');

    await email.fill('nope');
    await password.fill('whatever');
    await submit.click();
    await visible(page.getByText('Email is invalid'));
    expect(await fieldError(page, 'Email')).toBe('Email is invalid');

    // Wrong password: the server's error text, shown and alerted.
    const wrong = await apiCall<{ error?: string; message?: string }>('POST', '/api/vms/login', { body: { email: owner.email, password: 'Wrong-password-1' } });
    expect(wrong.status).toBeGreaterThanOrEqual(400);
    const serverText = wrong.body.error ?? wrong.body.message ?? '';
    expect(serverText).not.toBe('');
    await email.fill(owner.email);
    await password.fill('Wrong-password-2');
    await submit.click();
    await visible(page.getByRole('alert').filter({ hasText: serverText }));
    expect(dialogs.map((d) => d.message)).toContain(serverText);
    expect(pathOf(page)).toBe('/login');

    // And the right password signs in.
    await password.fill(owner.password);
    await submit.click();
    await waitForPath(page, '/dashboard');
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});
