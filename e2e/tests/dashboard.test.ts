import { afterAll, describe, expect, it } from 'vitest';
import { apiCall, base, createVisitor, integrationSnippet, PASSWORD, registerOwner, uniqueEmail, visitorSays } from '../support/api';
import { closeBrowser, newSession, visible } from '../support/browser';

afterAll(closeBrowser);

/** Issue 12 item 13: the dashboard says only what it knows. */
describe('item 13: dashboard figures and the bell', () => {
  it("names each visitor's agent, draws Page Views from widget loads, keeps Satisfaction truthfully empty, shows no Uptime, and the bell's dot clears once opened", async () => {
    const owner = await registerOwner('Dana Dashboard');
    const { key } = await integrationSnippet(owner.token);
    const team = await apiCall<{ roles: { id: number; name: string }[] }>('GET', '/api/vms/team', { token: owner.token });
    const added = await apiCall<{ data: { id: number } }>('POST', '/api/vms/team', {
      token: owner.token,
      body: { name: 'Nia Named', email: uniqueEmail('nia'), password: PASSWORD, role_id: team.body.roles.find((r) => r.name === 'Agent')!.id },
    });
    const routed = await createVisitor(key, { name: 'Rory Routed' });
    await visitorSays(routed, 'Who will answer me?');
    const assigned = await apiCall('POST', `/api/vms/team/${added.body.data.id}/assign`, { token: owner.token, body: { user_ids: [routed.id] } });
    expect(assigned.status).toBe(200);
    const free = await createVisitor(key, { name: 'Una Unrouted' });
    await visitorSays(free, 'Hello?');

    await apiCall('POST', '/api/widget/events', { body: { unique_code: key, load_id: 'dashboard-page-1', kind: 'load' } });
    const { page, pageErrors } = await newSession({ token: owner.token });
    await page.goto(`${base()}/dashboard`);
    const history = page.locator('section', { has: page.getByRole('heading', { name: 'Visitor History' }) });
    await visible(history.getByRole('row', { name: /Rory Routed/ }));
    expect(await history.getByRole('row', { name: /Rory Routed/ }).getByRole('cell').nth(1).textContent()).toBe('Nia Named');
    expect(await history.getByRole('row', { name: /Una Unrouted/ }).getByRole('cell').nth(1).textContent()).toBe('Unassigned');

    const satisfaction = page.locator('.stat-card', { hasText: 'Satisfaction' });
    await visible(satisfaction.getByText('No data yet'));
    await visible(satisfaction.getByText('No visitor ratings in this period'));
    expect(await page.getByText('Uptime', { exact: true }).count()).toBe(0);
    // Page Views come from the recorded widget loads: never "no data yet".
    expect(await page.getByText(/Page Views.*no data yet/).count()).toBe(0);

    // New activity: the dot is on; opening the bell clears it, for good (a reload keeps it off).
    await visible(page.getByRole('button', { name: 'Notifications (new activity)' }));
    await page.getByRole('button', { name: 'Notifications (new activity)' }).click();
    await visible(page.getByRole('button', { name: 'Notifications', exact: true }));
    await page.reload();
    await visible(history.getByRole('row', { name: /Rory Routed/ }));
    expect(await page.getByRole('button', { name: 'Notifications (new activity)' }).count()).toBe(0);
    // Something new after that: the dot comes back.
    await visitorSays(free, 'Still there?');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await visible(page.getByRole('button', { name: 'Notifications (new activity)' }));
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});
