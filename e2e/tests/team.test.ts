import { afterAll, describe, expect, it } from 'vitest';
import { apiCall, base, createVisitor, eventually, integrationSnippet, login, PASSWORD, registerOwner, uniqueEmail, visitorSays } from '../support/api';
import { closeBrowser, hidden, newSession, pathOf, visible, waitForPath } from '../support/browser';

afterAll(closeBrowser);

interface TeamBody {
  data: { id: number | string; name: string; email: string; role: { id: number; name: string } | null; assigned_users: { id: string; name: string }[] }[];
  roles: { id: number; name: string }[];
}

async function signInThroughForm(email: string, password: string) {
  const s = await newSession();
  await s.page.goto(`${base()}/login`);
  await s.page.getByLabel('Email', { exact: true }).fill(email);
  await s.page.getByLabel('Password', { exact: true }).fill(password);
  await s.page.getByRole('button', { name: 'Sign In' }).click();
  await waitForPath(s.page, '/dashboard');
  return s;
}

describe('team (journey 6)', () => {
  it('owner adds an Agent, assigns a visitor and deletes them; an Agent sees no Team entry; an Admin-role member sees the notice', async () => {
    const owner = await registerOwner('Tom Teamlead');
    const { key } = await integrationSnippet(owner.token);
    const visitor = await createVisitor(key, { name: 'Paula Prospect' });
    await visitorSays(visitor, 'Can someone help me?');

    const { page, dialogs, pageErrors } = await newSession({ token: owner.token });
    await page.goto(`${base()}/team`);
    await visible(page.getByRole('heading', { name: 'Team Management' }));
    await page.getByRole('button', { name: 'Add Member' }).click();
    const add = page.getByRole('dialog', { name: 'Add Team Member' });
    await visible(add);
    const agentEmail = uniqueEmail('agent');
    await add.getByLabel('Name', { exact: true }).fill('Andy Agent');
    await add.getByLabel('Email', { exact: true }).fill(agentEmail);
    await add.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await add.getByLabel('Role', { exact: true }).selectOption({ label: 'Agent' });
    await add.getByRole('button', { name: 'Add Member' }).click();
    await add.waitFor({ state: 'hidden' });
    const row = page.getByRole('row').filter({ hasText: 'Andy Agent' });
    await visible(row);
    await visible(row.getByText('Agent', { exact: true }));

    // Assign the visitor.
    await row.getByRole('button', { name: 'Assign users to Andy Agent' }).click();
    const assign = page.getByRole('dialog', { name: 'Assign Users to Andy Agent' });
    await assign.getByRole('checkbox', { name: 'Paula Prospect' }).check();
    await assign.getByRole('button', { name: 'Save Assignment' }).click();
    await assign.waitFor({ state: 'hidden' });
    await visible(row.getByText('Paula Prospect'));
    const team = await apiCall<TeamBody>('GET', '/api/vms/team', { token: owner.token });
    const agentRow = team.body.data.find((m) => m.email === agentEmail);
    expect(agentRow?.role?.name).toBe('Agent');
    expect(agentRow?.assigned_users.map((u) => u.id)).toEqual([visitor.id]);

    // The Agent signs in: no Team entry in the sidebar.
    const agent = await signInThroughForm(agentEmail, PASSWORD);
    const nav = agent.page.getByRole('navigation', { name: 'Main' });
    await visible(nav.getByRole('link', { name: 'Conversations' }));
    expect(await nav.getByRole('link', { name: 'Team' }).count()).toBe(0);
    await agent.context.close();

    // An Admin-role member opening /team sees the notice, not the table.
    const adminRole = team.body.roles.find((r) => r.name === 'Admin');
    expect(adminRole).toBeTruthy();
    const adminEmail = uniqueEmail('admin-member');
    const created = await apiCall('POST', '/api/vms/team', { token: owner.token, body: { name: 'Ada Admin', email: adminEmail, password: PASSWORD, role_id: adminRole!.id } });
    expect(created.status).toBe(201);
    const admin = await signInThroughForm(adminEmail, PASSWORD);
    await admin.page.goto(`${base()}/team`);
    await visible(admin.page.getByText('You do not have permission to view the team table.'));
    expect(await admin.page.getByRole('table').count()).toBe(0);
    expect(await admin.page.getByRole('button', { name: 'Add Member' }).count()).toBe(0);
    await admin.context.close();

    // The owner deletes the Agent through the browser confirm.
    await row.getByRole('button', { name: 'Delete Andy Agent' }).click();
    await row.waitFor({ state: 'detached' });
    expect(dialogs.some((d) => d.type === 'confirm' && d.message.includes('Andy Agent'))).toBe(true);
    await eventually(async () => {
      const after = await apiCall<TeamBody>('GET', '/api/vms/team', { token: owner.token });
      return !after.body.data.some((m) => m.email === agentEmail);
    }, 'the member gone from GET /api/vms/team');
    expect(pathOf(page)).toBe('/team');
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });

  it("the Assign dialog edits a member's whole assignment beyond the table's preview, and the thread records the change", async () => {
    const owner = await registerOwner('Rita Roster');
    const { key } = await integrationSnippet(owner.token);
    const roles = (await apiCall<TeamBody>('GET', '/api/vms/team', { token: owner.token })).body.roles;
    const added = await apiCall<{ data: { id: number } }>('POST', '/api/vms/team', {
      token: owner.token,
      body: { name: 'Max Many', email: uniqueEmail('many'), password: PASSWORD, role_id: roles.find((r) => r.name === 'Agent')!.id },
    });
    const memberId = added.body.data.id;
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      const v = await createVisitor(key, { name: `Seed ${String(i).padStart(2, '0')}` }, `198.51.100.${i + 1}`);
      await visitorSays(v, `Question ${i}`);
      ids.push(v.id);
    }
    const extra = await createVisitor(key, { name: 'Extra Person' }, '198.51.100.200');
    await visitorSays(extra, 'Me too');
    expect((await apiCall('POST', `/api/vms/team/${memberId}/assign`, { token: owner.token, body: { user_ids: ids } })).status).toBe(200);

    const { page, pageErrors } = await newSession({ token: owner.token });
    await page.goto(`${base()}/team`);
    const row = page.getByRole('row').filter({ hasText: 'Max Many' });
    await visible(row.getByText('+4 more'));
    await row.getByRole('button', { name: 'Assign users to Max Many' }).click();
    const dialog = page.getByRole('dialog', { name: 'Assign Users to Max Many' });
    await visible(dialog.getByRole('checkbox', { name: 'Seed 00' }));
    // All 24 assigned users are ticked, also the 4 the table does not show.
    await expect.poll(() => dialog.getByRole('checkbox', { checked: true }).count()).toBe(24);
    await dialog.getByRole('checkbox', { name: 'Seed 00' }).uncheck();
    await dialog.getByRole('searchbox', { name: 'Search users' }).fill('extra');
    await dialog.getByRole('checkbox', { name: 'Extra Person' }).check();
    await dialog.getByRole('button', { name: 'Save Assignment' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const assigned = await apiCall<{ data: { id: string }[]; total: number }>('GET', `/api/vms/team/${memberId}/assignments?limit=100`, { token: owner.token });
    expect(assigned.body.total).toBe(24);
    const now = new Set(assigned.body.data.map((u) => u.id));
    expect(now.has(extra.id)).toBe(true);
    expect(now.has(ids[0]!)).toBe(false);
    expect(ids.slice(1).every((id) => now.has(id))).toBe(true);
    // The same system lines as the header's assign.
    const thread = await apiCall<{ data: { message: string; sender_type: string }[] }>('GET', `/api/vms/messages/${extra.id}`, { token: owner.token });
    expect(thread.body.data.filter((m) => m.sender_type === 'system').map((m) => m.message)).toEqual(['Rita Roster assigned the conversation to Max Many']);
    const dropped = await apiCall<{ data: { message: string; sender_type: string }[] }>('GET', `/api/vms/messages/${ids[0]}`, { token: owner.token });
    expect(dropped.body.data.filter((m) => m.sender_type === 'system').map((m) => m.message)).toContain('Rita Roster unassigned Max Many');
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });

  it("a member's console follows a status change live: disabled hides Attach image, active shows it again", async () => {
    const owner = await registerOwner('Sara Status');
    const { key } = await integrationSnippet(owner.token);
    const visitor = await createVisitor(key, { name: 'Dora Disabled' });
    await visitorSays(visitor, 'Hello there');
    const roles = (await apiCall<TeamBody>('GET', '/api/vms/team', { token: owner.token })).body.roles;
    const email = uniqueEmail('status-member');
    const created = await apiCall<{ data: { id: number } }>('POST', '/api/vms/team', {
      token: owner.token,
      body: { name: 'Milo Member', email, password: PASSWORD, role_id: roles.find((r) => r.name === 'Admin')!.id },
    });
    expect(created.status).toBe(201);
    const memberId = created.body.data.id;
    const token = await login(email, PASSWORD);

    const { page, pageErrors } = await newSession({ token });
    await page.goto(`${base()}/conversations`);
    await visible(page.getByText('Live: new messages appear as they arrive'));
    await page.getByRole('list', { name: 'Conversation list' }).getByRole('button', { name: /Dora Disabled/ }).click();
    const chat = page.getByRole('region', { name: 'Chat with Dora Disabled' });
    const attach = chat.getByRole('button', { name: 'Attach image' });
    await visible(attach);

    const navigations: string[] = [];
    page.on('framenavigated', (f) => f === page.mainFrame() && navigations.push(f.url()));
    const disable = await apiCall('PATCH', `/api/vms/team/${memberId}`, { token: owner.token, body: { status: 'disabled' } });
    expect(disable.status).toBe(200);
    await hidden(attach);
    // Back live under the new status, and text still goes out.
    await visible(page.getByText('Live: new messages appear as they arrive'));
    await chat.getByRole('textbox', { name: 'Message' }).fill('Text still works');
    await chat.getByRole('button', { name: 'Send message' }).click();
    await visible(chat.getByRole('log', { name: 'Messages' }).getByText('Text still works'));

    expect((await apiCall('PATCH', `/api/vms/team/${memberId}`, { token: owner.token, body: { status: 'active' } })).status).toBe(200);
    await visible(attach);
    expect(navigations).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });
});
