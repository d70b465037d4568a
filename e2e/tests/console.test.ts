import type { Page, Request } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { apiCall, base, createVisitor, eventually, integrationSnippet, login, PASSWORD, registerOwner, uniqueEmail, visitorHistory } from '../support/api';
import { closeBrowser, fieldError, newSession, pathOf, visible, waitForPath } from '../support/browser';

afterAll(closeBrowser);

/** Issue 12's console defects, one journey per item (items 2, 4, 7, 9, 10, 11, 12). */

async function member(ownerToken: string, role: 'Admin' | 'Agent', name: string): Promise<string> {
  const team = await apiCall<{ roles: { id: number; name: string }[] }>('GET', '/api/vms/team', { token: ownerToken });
  const email = uniqueEmail(role.toLowerCase());
  const res = await apiCall('POST', '/api/vms/team', { token: ownerToken, body: { name, email, password: PASSWORD, role_id: team.body.roles.find((r) => r.name === role)!.id } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`member: ${res.status} ${JSON.stringify(res.body)}`);
  return login(email, PASSWORD);
}

/** Writes the page sends to the settings calls (method + path). */
function recordWrites(page: Page): string[] {
  const writes: string[] = [];
  page.on('request', (r: Request) => {
    const u = new URL(r.url());
    if (r.method() !== 'GET' && /^\/api\/vms\/(widget-settings|chatwidget-settings|greetings|account-info)/.test(u.pathname)) writes.push(`${r.method()} ${u.pathname}`);
  });
  return writes;
}

const READ_ONLY = 'Only the account owner or an Admin can change these settings.';

describe('item 2: roles in the UI follow the server', () => {
  it('an Agent sees settings and onboarding read only, with no Save that can only fail; an Admin saves', async () => {
    const owner = await registerOwner('Rhea Roles');
    const agentToken = await member(owner.token, 'Agent', 'Andy Agent');
    const { page, pageErrors } = await newSession({ token: agentToken });
    const writes = recordWrites(page);

    await page.goto(`${base()}/settings`);
    await visible(page.getByLabel('Widget name', { exact: true }));
    await visible(page.getByLabel('Initial greeting', { exact: true }));
    await visible(page.getByLabel('Website URL', { exact: true }));
    // The three SPEC cards, the widget language card (issue 13) and the business hours card (issue 17).
    await visible(page.getByRole('region', { name: 'Business Hours' }).getByText(READ_ONLY));
    expect(await page.getByText(READ_ONLY).count()).toBe(5);
    for (const label of ['Widget name', 'Title or department', 'Initial greeting', 'Website URL', 'Phone number']) {
      expect(await page.getByLabel(label, { exact: true }).isDisabled(), label).toBe(true);
    }
    for (const save of ['Save Widget Settings', 'Save Greetings', 'Save Account Information', 'Save Language', 'Save Business Hours']) {
      expect(await page.getByRole('button', { name: save }).count(), save).toBe(0);
    }
    expect(await page.getByRole('button', { name: 'Upload avatar' }).count()).toBe(0);
    expect(await page.getByText('Danger Zone').count()).toBe(0);
    // Their own profile and password stay editable.
    expect(await page.getByLabel('Name', { exact: true }).isDisabled()).toBe(false);
    await visible(page.getByRole('button', { name: 'Update Profile' }));

    // The wizard: read only, Next moves on without saving.
    await page.goto(`${base()}/widget-settings`);
    await visible(page.getByText(READ_ONLY));
    expect(await page.getByLabel('Name', { exact: true }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Next' }).click();
    await waitForPath(page, '/greetings');
    await visible(page.getByText(READ_ONLY));
    await page.getByRole('button', { name: 'Next' }).click();
    await waitForPath(page, '/account-info');
    await page.getByRole('button', { name: 'Finish' }).click();
    await waitForPath(page, '/dashboard');
    expect(writes).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.context().close();

    // An Admin-role member may write: the same cards save.
    const adminToken = await member(owner.token, 'Admin', 'Ada Admin');
    const admin = await newSession({ token: adminToken });
    await admin.page.goto(`${base()}/settings`);
    const greeting = await visible(admin.page.getByLabel('Initial greeting', { exact: true }));
    expect(await admin.page.getByText(READ_ONLY).count()).toBe(0);
    await greeting.fill('Welcome from the Admin');
    await admin.page.getByRole('button', { name: 'Save Greetings' }).click();
    await visible(admin.page.getByText('Greetings updated successfully'));
    const stored = await apiCall<{ data: { initial_greeting: string } }>('GET', '/api/vms/greetings', { token: owner.token });
    expect(stored.body.data.initial_greeting).toBe('Welcome from the Admin');
    await admin.page.context().close();
  });
});

describe('item 4: greetings and account info reachable after onboarding', () => {
  it('Settings edits title, greetings and account info with the wizard messages; the documentation links the wizard', async () => {
    const owner = await registerOwner('Sam Settings');
    const { page, pageErrors } = await newSession({ token: owner.token });
    await page.goto(`${base()}/settings`);
    const title = await visible(page.getByLabel('Title or department', { exact: true }));
    await title.fill('Billing desk');
    await page.getByRole('button', { name: 'Save Widget Settings' }).click();
    await visible(page.getByText('Widget settings updated successfully'));

    const initial = page.getByLabel('Initial greeting', { exact: true });
    await initial.fill('   ');
    await page.getByRole('button', { name: 'Save Greetings' }).click();
    await visible(page.getByText('Initial greeting is required'));
    expect(await fieldError(page, 'Initial greeting')).toBe('Initial greeting is required');
    await initial.fill('Hi! Ask us anything.');
    await page.getByLabel('Follow-up greeting (optional)', { exact: true }).fill('We usually answer in minutes.');
    await page.getByRole('button', { name: 'Save Greetings' }).click();
    await visible(page.getByText('Greetings updated successfully'));

    const url = page.getByLabel('Website URL', { exact: true });
    await url.fill('not a url');
    await page.getByLabel('Phone number', { exact: true }).fill('12345');
    await page.getByRole('button', { name: 'Save Account Information' }).click();
    await visible(page.getByText('Please enter a valid URL'));
    expect(await fieldError(page, 'Phone number')).toBe('Please enter a valid phone number');
    await url.fill('https://shop.example');
    await page.getByLabel('Phone number', { exact: true }).fill('+1 555 123 4567');
    await page.getByLabel('Business location', { exact: true }).fill('Lisbon, Portugal');
    await page.getByRole('button', { name: 'Save Account Information' }).click();
    await visible(page.getByText('Account information updated successfully'));

    const get = async (path: string) => (await apiCall<{ data: Record<string, unknown> }>('GET', path, { token: owner.token })).body.data;
    expect(await get('/api/vms/widget-settings')).toMatchObject({ title: 'Billing desk' });
    expect(await get('/api/vms/greetings')).toMatchObject({ initial_greeting: 'Hi! Ask us anything.', follow_up_greeting: 'We usually answer in minutes.' });
    expect(await get('/api/vms/account-info')).toMatchObject({ website_url: 'https://shop.example', phone_number: '+1 555 123 4567', business_location: 'Lisbon, Portugal' });

    // After a reload the cards show what was saved.
    await page.reload();
    await visible(page.getByLabel('Initial greeting', { exact: true }));
    expect(await page.getByLabel('Business location', { exact: true }).inputValue()).toBe('Lisbon, Portugal');

    // The documentation's link to the wizard opens it, signed in.
    await page.goto(`${base()}/documentation`);
    await page.getByRole('link', { name: 'onboarding wizard' }).click();
    await waitForPath(page, '/widget-settings');
    await visible(page.getByText('Customize your widget'));
    expect(await page.getByLabel('Title or department', { exact: true }).inputValue()).toBe('Billing desk');
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});

describe('item 7: Start Chat opens that visitor', () => {
  it('opens the conversation view of a visitor with no conversation yet; the first reply starts it', async () => {
    const owner = await registerOwner('Stella Start');
    const { key } = await integrationSnippet(owner.token);
    const quiet = await createVisitor(key, { name: 'Quinn Quiet', email: 'quinn@example.com' });
    for (const viewport of [{ width: 1280, height: 860 }, { width: 375, height: 740 }]) {
      const { page, pageErrors } = await newSession({ token: owner.token, viewport });
      await page.goto(`${base()}/visitors`);
      await page.getByRole('button', { name: 'View Details of Quinn Quiet' }).click();
      await page.getByRole('dialog', { name: 'Visitor Details' }).getByRole('link', { name: 'Start Chat' }).click();
      await waitForPath(page, '/conversations');
      const chat = page.getByRole('region', { name: 'Chat with Quinn Quiet' });
      await visible(chat);
      await visible(chat.getByText('quinn@example.com'));
      const box = chat.getByRole('textbox', { name: 'Message' });
      await visible(box);
      const r = await box.boundingBox();
      expect(r!.y + r!.height).toBeLessThanOrEqual(viewport.height);
      if (viewport.width > 400) {
        await box.fill('Hello Quinn, can we help?');
        await chat.getByRole('button', { name: 'Send message' }).click();
        await visible(page.getByRole('button', { name: /Quinn Quiet/ }));
        await eventually(async () => (await visitorHistory(quiet)).some((m) => m.message === 'Hello Quinn, can we help?'), 'the reply in the visitor history');
      }
      expect(pageErrors).toEqual([]);
      await page.context().close();
    }
  });
});

describe('item 9: pages promise only what exists', () => {
  it('landing pricing and documentation say only what is true today', async () => {
    const owner = await registerOwner('Petra Promise');
    const { page, pageErrors } = await newSession();
    await page.goto(`${base()}/`);
    const pricing = page.locator('#pricing');
    await visible(pricing.getByText('Professional', { exact: true }));
    expect(await page.getByText('API access').count()).toBe(0);
    await visible(pricing.getByText('Single sign-on on request'));
    expect(await page.getByText('Single sign-on', { exact: true }).count()).toBe(0);

    await page.evaluate((t) => localStorage.setItem('auth_token', t), owner.token);
    await page.goto(`${base()}/documentation`);
    await visible(page.getByText(/See each visitor.s name, email, country, IP address and when they visited/));
    expect(await page.getByText(/device, pages/).count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});

describe('item 10: every register error at once', () => {
  it('shows "Passwords do not match" together with the other field errors', async () => {
    const { page, pageErrors } = await newSession();
    await page.goto(`${base()}/register`);
    await visible(page.getByLabel('Full name', { exact: true }));
    await page.getByLabel('Full name', { exact: true }).fill('A');
    await page.getByLabel('Email', { exact: true }).fill('not-an-email');
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByLabel('Confirm password', { exact: true }).fill('different');
    await page.getByRole('button', { name: 'Create Account' }).click();
    await visible(page.getByText('Passwords do not match'));
    expect(await fieldError(page, 'Full name')).toBe('Name must be at least 2 characters');
    expect(await fieldError(page, 'Email')).toBe('Please enter a valid email address');
    expect(await fieldError(page, 'Password')).toBe('Password must be at least 8 characters');
    expect(await fieldError(page, 'Confirm password')).toBe('Passwords do not match');
    expect(pathOf(page)).toBe('/register');
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});

describe('item 11: logout sends nothing with the revoked token', () => {
  it.each(['/dashboard', '/conversations'])('from %s: no request after the logout call, no console error', async (path) => {
    const owner = await registerOwner('Lou Logout');
    const { page, pageErrors } = await newSession({ token: owner.token });
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    const socketOpen = page.waitForEvent('websocket');
    await page.goto(`${base()}${path}`);
    await socketOpen;
    await page.waitForTimeout(500);
    const after: string[] = [];
    let loggedOut = false;
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname === '/api/vms/logout') loggedOut = true;
      else if (loggedOut && u.pathname.startsWith('/api/')) after.push(`${r.method()} ${u.pathname} ${r.headers().authorization ? 'with token' : 'no token'}`);
    });
    await page.getByRole('button', { name: 'Logout' }).first().click();
    await waitForPath(page, '/login');
    await page.waitForTimeout(1500);
    expect(after).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});

describe('item 12: favicon', () => {
  it('declares an icon that is served, and /favicon.ico is an image', async () => {
    const { page } = await newSession();
    const notFound: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 404) notFound.push(r.url());
    });
    await page.goto(`${base()}/login`);
    const hrefs = await page.locator('link[rel="icon"]').evaluateAll((els) => els.map((e) => (e as HTMLLinkElement).href));
    expect(hrefs.length).toBeGreaterThan(0);
    for (const href of [...hrefs, `${base()}/favicon.ico`]) {
      const res = await fetch(href);
      expect(res.status, href).toBe(200);
      expect(res.headers.get('content-type'), href).toMatch(/^image\//);
    }
    expect(notFound).toEqual([]);
    await page.context().close();
  });
});
