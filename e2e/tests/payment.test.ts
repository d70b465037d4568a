import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { apiCall, base, registerOwner } from '../support/api';
import { closeBrowser, newSession, visible, waitForPath } from '../support/browser';

afterAll(closeBrowser);

interface SubscriptionRow {
  plan_name: string;
  status: string;
  is_active: boolean;
  payment_reference: string;
}

/** Plan list -> Professional ('Get Started') -> detail -> 'Continue to Payment' -> the sandbox page. */
async function toSandboxCheckout(page: Page): Promise<string> {
  await page.goto(`${base()}/subscription`);
  await visible(page.getByRole('heading', { name: 'Choose Your Plan' }));
  await visible(page.getByText('MOST POPULAR'));
  const getStarted = page.getByRole('button', { name: /^Get Started/ });
  await visible(getStarted);
  expect(await getStarted.getAttribute('aria-label')).toMatch(/Professional/);
  await getStarted.click();
  await visible(page.getByRole('button', { name: /Back to Plans/ }));
  await visible(page.getByText('POPULAR CHOICE'));
  await visible(page.getByText('per month, billed monthly'));
  await page.getByRole('button', { name: 'Continue to Payment' }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/api/payments/sandbox/checkout/'), { timeout: 15_000 });
  await visible(page.getByText('SANDBOX - TEST PAYMENT, NO MONEY IS TAKEN'));
  await visible(page.getByText('Professional', { exact: true }));
  return decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
}

/** Holds the verification call for a moment, so the 'Verifying Payment' state is observable. */
async function slowVerify(page: Page): Promise<void> {
  await page.route('**/api/verify-payment/**', async (route) => {
    await new Promise((r) => setTimeout(r, 700));
    await route.continue();
  });
}

describe('payment sandbox (journey 9)', () => {
  it('pays for Professional: sandbox Pay -> verifying -> dashboard with the success toast', async () => {
    const owner = await registerOwner('Paul Payer');
    const { page, pageErrors } = await newSession({ token: owner.token });
    await slowVerify(page);
    const reference = await toSandboxCheckout(page);

    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL((u) => u.pathname === '/subscription' && u.searchParams.get('reference') === reference, { timeout: 15_000 });
    await visible(page.getByRole('heading', { name: 'Verifying Payment' }));
    await visible(page.getByText("We're confirming your payment details. This may take a moment."));
    await waitForPath(page, '/dashboard');
    await visible(page.getByRole('status').filter({ hasText: 'Payment successful! Your subscription is now active.' }));

    const subs = await apiCall<{ status: string; data: SubscriptionRow[] }>('GET', '/api/user/subscriptions', { token: owner.token });
    expect(subs.body.status).toBe('success');
    const paid = subs.body.data.find((s) => s.payment_reference === reference);
    expect(paid).toMatchObject({ plan_name: 'Professional', is_active: true });
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });

  it('declines: back on /subscription in the failed state with the failure toast, nothing activated', async () => {
    const owner = await registerOwner('Dora Decline');
    const { page, pageErrors } = await newSession({ token: owner.token });
    await slowVerify(page);
    const reference = await toSandboxCheckout(page);

    await page.getByRole('button', { name: 'Decline' }).click();
    await page.waitForURL((u) => u.pathname === '/subscription' && u.searchParams.get('reference') === reference, { timeout: 15_000 });
    await visible(page.getByRole('heading', { name: 'Verifying Payment' }));
    await visible(page.getByRole('alert').filter({ hasText: 'Payment verification failed' }));
    // Failed: the plans come back, the reference is dropped from the URL, no redirect to /dashboard.
    await visible(page.getByRole('heading', { name: 'Choose Your Plan' }));
    await page.waitForURL((u) => u.pathname === '/subscription' && !u.searchParams.has('reference'));
    await page.waitForTimeout(500);
    expect(new URL(page.url()).pathname).toBe('/subscription');

    const verify = await apiCall<{ status: string }>('GET', `/api/verify-payment/${encodeURIComponent(reference)}`, { token: owner.token });
    expect(verify.body.status).toBe('failed');
    const subs = await apiCall<{ data: SubscriptionRow[] }>('GET', '/api/user/subscriptions', { token: owner.token });
    expect(subs.body.data.some((s) => s.payment_reference === reference && s.is_active)).toBe(false);
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});
