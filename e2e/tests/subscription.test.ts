import { afterAll, describe, expect, it } from 'vitest';
import { apiCall, login, PASSWORD, registerOwner, uniqueEmail } from '../support/api';
import { base } from '../support/api';
import { closeBrowser, hidden, newSession, visible } from '../support/browser';

afterAll(closeBrowser);

// Issue 12 items 1 and 6: the subscription screen of a team member (read-only, no owner-only
// calls) and the owner's downgrade / cancel at the end of the period.

interface StatusBody {
  data: { paid_until: string | null; trial_ends_at: string | null; scheduled_change: { kind: string; effective_at: string } | null };
}

const longDate = (iso: string) => new Date(iso).toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });

async function member(ownerToken: string, role: 'Agent' | 'Admin'): Promise<string> {
  const team = await apiCall<{ roles: { id: number; name: string }[] }>('GET', '/api/vms/team', { token: ownerToken });
  const roleId = team.body.roles.find((r) => r.name === role)!.id;
  const email = uniqueEmail(role.toLowerCase());
  const created = await apiCall('POST', '/api/vms/team', { token: ownerToken, body: { name: `Sam ${role}`, email, password: PASSWORD, role_id: roleId } });
  expect(created.status).toBe(201);
  return login(email, PASSWORD);
}

/** Pays a month of Professional through the sandbox checkout, the way its page's Pay button does. */
async function payProfessional(token: string): Promise<void> {
  const plans = await apiCall<{ data: { id: number; name: string }[] }>('GET', '/api/plans');
  const pro = plans.body.data.find((p) => p.name === 'Professional')!;
  const init = await apiCall<{ authorization_url: string; reference: string }>('POST', '/api/initialize-payment', { token, body: { plan_id: pro.id } });
  expect(init.status).toBe(200);
  const pay = await fetch(`${init.body.authorization_url}/pay`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
  expect(pay.status).toBe(302);
  const verified = await apiCall<{ status: string }>('GET', `/api/verify-payment/${init.body.reference}`, { token });
  expect(verified.body.status).toBe('success');
}

describe('subscription screen (issue 12)', () => {
  it('an Agent and an Admin see a read-only notice with the plan in force: no plan buttons, no 403, no error toast', async () => {
    const owner = await registerOwner('Owen Owner');
    const status = await apiCall<StatusBody>('GET', '/api/user/subscription', { token: owner.token });
    const trialEnd = status.body.data.trial_ends_at!;
    for (const role of ['Agent', 'Admin'] as const) {
      const token = await member(owner.token, role);
      const { page, pageErrors, context } = await newSession({ token });
      const refused: string[] = [];
      page.on('response', (r) => {
        if (r.status() === 403) refused.push(`${r.request().method()} ${new URL(r.url()).pathname}`);
      });
      await page.goto(`${base()}/subscription`);
      await visible(page.getByRole('heading', { name: 'Subscription', exact: true }));
      const shown = new Date(trialEnd).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric' });
      await visible(page.getByText(`Your account is on the Professional (trial) plan until ${shown}.`));
      await visible(page.getByText('Only the account owner can change the plan, pay, or see the payment history.'));
      await page.waitForTimeout(800);
      expect(await page.getByRole('button', { name: /Select Plan|Get Started|Continue to Payment|Cancel subscription/ }).count(), role).toBe(0);
      expect(await page.getByText('Error loading subscriptions').count(), role).toBe(0);
      expect(await page.getByText('You do not have permission to do this').count(), role).toBe(0);
      expect(refused, role).toEqual([]);
      expect(pageErrors, role).toEqual([]);
      await context.close();
    }
  });

  it('the owner downgrades to Starter at the end of the paid month, keeps the plan, then cancels', async () => {
    const owner = await registerOwner('Dana Downgrade');
    await payProfessional(owner.token); // during the trial: the paid month starts when it ends
    const before = (await apiCall<StatusBody>('GET', '/api/user/subscription', { token: owner.token })).body.data;
    const until = longDate(before.paid_until!);
    expect(new Date(before.paid_until!).getTime()).toBeGreaterThan(new Date(before.trial_ends_at!).getTime());

    const { page, pageErrors, context } = await newSession({ token: owner.token });
    await page.goto(`${base()}/subscription`);
    await visible(page.getByRole('heading', { name: 'Choose Your Plan' }));
    const current = page.getByRole('region', { name: /Current plan/ });
    await visible(current.getByRole('heading', { name: 'Current plan: Professional (trial)' }));
    await visible(current.getByText(`Your paid Professional month starts when the trial ends and runs until ${until}.`));

    // Starter from the plan list: a downgrade at the period's end, no payment.
    await page.getByRole('button', { name: 'Select Plan: Starter' }).click();
    await visible(page.getByText(`Professional stays until ${until}; the Starter plan applies from then.`, { exact: false }));
    expect(await page.getByRole('button', { name: 'Continue to Payment' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Downgrade to Starter' }).click();
    await visible(page.getByRole('status').filter({ hasText: 'Your plan changes to Starter at the end of the current period' }));
    await visible(page.getByRole('heading', { name: 'Choose Your Plan' }));
    await visible(current.getByText(`You chose the Starter plan: Professional stays until ${until}, then the Starter plan applies.`));
    let now = (await apiCall<StatusBody>('GET', '/api/user/subscription', { token: owner.token })).body.data;
    expect(now.scheduled_change).toMatchObject({ kind: 'downgrade', effective_at: before.paid_until });

    // Changed their mind: keep Professional.
    await current.getByRole('button', { name: 'Keep Professional' }).click();
    await visible(current.getByText(`pay again before ${until} to keep Professional`, { exact: false }));
    now = (await apiCall<StatusBody>('GET', '/api/user/subscription', { token: owner.token })).body.data;
    expect(now.scheduled_change).toBeNull();

    // Cancel, confirmed: the same moment.
    await current.getByRole('button', { name: 'Cancel subscription' }).click();
    await visible(current.getByText(`Cancel at the end of the period? Professional stays until ${until}, then the Starter plan applies.`, { exact: false }));
    await current.getByRole('button', { name: 'Yes, cancel' }).click();
    await visible(current.getByText(`You cancelled: Professional stays until ${until}, then the Starter plan applies.`));
    await hidden(current.getByRole('button', { name: 'Cancel subscription' }));
    now = (await apiCall<StatusBody>('GET', '/api/user/subscription', { token: owner.token })).body.data;
    expect(now.scheduled_change).toMatchObject({ kind: 'cancel', effective_at: before.paid_until });

    // The paid plan's detail says when a new month would start.
    await page.getByRole('button', { name: 'Get Started: Professional' }).click();
    await visible(page.getByText(`it starts on ${until}, when your current month ends. Paying also cancels your scheduled move to Starter.`, { exact: false }));
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
