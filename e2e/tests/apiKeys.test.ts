import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { apiCall, base, createVisitor, integrationSnippet, registerOwner, visitorSays } from '../support/api';
import { closeBrowser, hidden, newSession, visible, waitForPath } from '../support/browser';

afterAll(closeBrowser);

describe('API keys screen (issue 14)', () => {
  it('creates a key shown once, which then reads conversations over the API, and revokes it', async () => {
    const owner = await registerOwner('Kim Keys');
    const { key: widgetKey } = await integrationSnippet(owner.token);
    const visitor = await createVisitor(widgetKey, { name: 'Vic' });
    await visitorSays(visitor, 'Hello from the site');

    const { page, pageErrors, dialogs } = await newSession({ token: owner.token });
    await page.goto(`${base()}/dashboard`);
    await page.getByRole('link', { name: 'API & Webhooks' }).click();
    await waitForPath(page, '/api-access');
    // The form refuses what the server refuses, with the same words.
    await page.getByRole('button', { name: 'Create key' }).click();
    await visible(page.getByText('Name is required'));
    await page.getByLabel('Key name').fill('CRM sync');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = await visible(page.getByLabel('New API key'));
    const key = (await shown.inputValue()).trim();
    expect(key).toMatch(/^prly_/);
    await page.getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('table', { name: 'API keys' }).getByRole('row', { name: /CRM sync/ });
    await visible(row);
    expect(await page.getByLabel('New API key').count()).toBe(0);
    expect(await page.content()).not.toContain(key);

    // The key works for what its scope allows, and nothing else.
    const list = await apiCall<{ data: { visitor_id: string }[] }>('GET', '/api/vms/conversations', { token: key });
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).toContain(visitor.id);
    expect((await apiCall('GET', '/api/vms/team', { token: key })).status).toBe(403);

    await page.reload();
    await visible(row);
    await hidden(row.getByText('Never')); // last used is now set
    await row.getByRole('button', { name: 'Revoke CRM sync' }).click();
    await visible(page.getByText('No API keys yet.'));
    expect(dialogs.map((d) => d.message)).toEqual(['Revoke the key “CRM sync”? Anything using it stops working at once.']);
    expect((await apiCall('GET', '/api/vms/conversations', { token: key })).status).toBe(401);
    expect(pageErrors).toEqual([]);
  });

  it('runs every curl example of Documentation > API keys as shown, with a real key', async () => {
    const owner = await registerOwner('Dora Docs');
    const { key: widgetKey } = await integrationSnippet(owner.token);
    const visitor = await createVisitor(widgetKey, { name: 'Curly' });
    await visitorSays(visitor, 'Hi from curl land');
    const created = await apiCall<{ data: { key: string } }>('POST', '/api/vms/api-keys', {
      token: owner.token,
      body: { name: 'docs', scopes: ['conversations:read', 'messages:send', 'visitors:manage', 'stats:read'] },
    });
    const apiKey = created.body.data.key;
    const { page, pageErrors } = await newSession({ token: owner.token });
    await page.goto(`${base()}/documentation`);
    const section = page.locator('#api-keys');
    await visible(section.getByRole('heading', { name: 'API keys and webhooks' }));
    const titles = await section.locator('h3').allTextContents();
    const commands = (await section.locator('pre code').allTextContents()).filter((c) => c.startsWith('curl '));
    expect(commands.length).toBeGreaterThanOrEqual(5);
    for (const [i, shown] of commands.entries()) {
      const expected = Number(/answers (\d{3})/.exec(titles[i] ?? '')?.[1]);
      const command = `${shown.replaceAll('https://your-parley-host', base()).replaceAll('YOUR_API_KEY', apiKey).replaceAll('VISITOR_ID', visitor.id)} -o /dev/null -w '%{http_code}'`;
      const { stdout } = await promisify(execFile)('bash', ['-c', command]);
      expect(Number(stdout.trim()), `${titles[i]}: ${shown}`).toBe(expected);
    }
    // The reply and the resolve really happened.
    const thread = await apiCall('GET', `/api/vms/messages/${visitor.id}`, { token: owner.token });
    expect(JSON.stringify(thread.body)).toContain('Thanks, we are on it');
    expect(pageErrors).toEqual([]);
  });
});
