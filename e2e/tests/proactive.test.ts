import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { apiCall, base, integrationSnippet, registerOwner } from '../support/api';
import { closeBrowser, newSession, useToken, visible } from '../support/browser';

afterAll(closeBrowser);

// Issue 13, proactive messages: the owner adds one in Settings (with its preview); on the
// customer's page it shows once as a bubble after the set seconds, opens the chat when clicked,
// and is not shown again on the next page load that day (the server records it).
describe('proactive messages (issue 13)', () => {
  it('a trigger defined in the console fires once on the host page', async () => {
    const owner = await registerOwner('Petra Proactive');
    const look = new FormData();
    look.set('name', 'Petra Plants');
    look.set('title', 'Garden help');
    look.set('color', '#3b7a57');
    expect((await apiCall('POST', '/api/vms/chatwidget-settings', { token: owner.token, form: look })).status).toBeLessThan(300);

    const consoleSession = await newSession();
    const c = consoleSession.page;
    await useToken(c, owner.token);
    await c.goto(`${base()}/settings`);
    const form = c.getByRole('form', { name: 'New proactive message' });
    await visible(form, 20_000);
    await form.getByLabel('Name', { exact: true }).fill('Plant help');
    await form.getByLabel('Message', { exact: true }).fill('Need help picking a plant?');
    await form.getByLabel('Page address pattern').fill('/plants*');
    await form.getByLabel('Seconds on the page').fill('1');
    await form.getByLabel('Sender name').fill('Petra');
    await visible(form.getByRole('group', { name: 'Preview' }).getByText('Need help picking a plant?'));
    await form.getByRole('button', { name: 'Add proactive message' }).click();
    await visible(c.getByRole('table', { name: 'Proactive messages' }).getByText('Plant help'));
    expect(consoleSession.pageErrors).toEqual([]);
    await consoleSession.context.close();

    const { script } = await integrationSnippet(owner.token);
    const page = (name: string) => `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${name}</title></head>\n<body><h1>${name}</h1>\n${script}\n</body></html>\n`;
    fs.writeFileSync(path.join(inject('hostDir'), 'plants.html'), page('Plants'));
    fs.writeFileSync(path.join(inject('hostDir'), 'pots.html'), page('Pots'));

    const { page: p, pageErrors, context } = await newSession();
    // Not on a page the pattern leaves out.
    await p.goto(`${inject('hostUrl')}/pots.html`);
    await visible(p.getByRole('button', { name: 'Open chat' }), 15_000);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await p.getByText('Need help picking a plant?').count()).toBe(0);

    await p.goto(`${inject('hostUrl')}/plants.html`);
    const bubble = p.getByRole('button', { name: /Need help picking a plant\?/ });
    await visible(bubble, 15_000);
    await bubble.click();
    const panel = p.getByRole('dialog', { name: 'Petra Plants' });
    await visible(panel.getByText('Need help picking a plant?'));

    // Once a day: the next load of the page shows nothing.
    await p.reload();
    await visible(p.getByRole('button', { name: 'Open chat' }), 15_000);
    await new Promise((r) => setTimeout(r, 3000));
    expect(await p.getByText('Need help picking a plant?').count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
