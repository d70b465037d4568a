import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { base, createVisitor, eventually, integrationSnippet, registerOwner, visitorHistory, visitorSays } from '../support/api';
import { closeBrowser, hidden, newSession, visible } from '../support/browser';

afterAll(closeBrowser);

// Issue 16 "Working faster": canned replies, private notes, labels.
describe('inbox tools', () => {
  it('manages a canned reply and a label in Settings, inserts the reply with / and the names filled in, labels a conversation and filters by it', async () => {
    const owner = await registerOwner('Olivia Owner');
    const { key } = await integrationSnippet(owner.token);
    const victor = await createVisitor(key, { name: 'Victor Visitor' });
    await visitorSays(victor, 'Hello, is anyone there?');
    const nina = await createVisitor(key, { name: 'Nina Newcomer' });
    await visitorSays(nina, 'Hi!');

    const { page, pageErrors } = await newSession({ token: owner.token });
    await page.goto(`${base()}/settings`);
    const canned = page.getByRole('form', { name: 'New canned reply' });
    await canned.getByRole('textbox', { name: 'Title' }).fill('Greeting');
    await canned.getByRole('textbox', { name: 'Shortcut' }).fill('/Hello');
    await canned.getByRole('button', { name: 'Add canned reply' }).click();
    // The shared schema answers in the form before any call: text is required.
    await visible(canned.getByText('Text is required'));
    await canned.getByRole('textbox', { name: 'Text' }).fill('Hi {{visitor.name}}, this is {{agent.name}}. How can I help?');
    await canned.getByRole('button', { name: 'Add canned reply' }).click();
    await visible(page.getByRole('table', { name: 'Canned replies' }).getByText('/hello'));

    const labelForm = page.getByRole('form', { name: 'New label' });
    await labelForm.getByRole('textbox', { name: 'Label name' }).fill('VIP');
    await labelForm.getByRole('button', { name: 'Colour #eab308' }).click();
    await labelForm.getByRole('button', { name: 'Add label' }).click();
    await visible(page.getByRole('table', { name: 'Labels' }).getByText('VIP'));

    await page.goto(`${base()}/conversations`);
    const list = page.getByRole('list', { name: 'Conversation list' });
    await list.getByRole('button', { name: /Victor Visitor/ }).click();
    const chat = page.getByRole('region', { name: 'Chat with Victor Visitor' });
    const box = chat.getByRole('textbox', { name: 'Message' });
    await box.click();
    await box.pressSequentially('/hel');
    const picker = chat.getByRole('listbox', { name: 'Canned replies' });
    await visible(picker.getByRole('option', { name: /\/hello/ }));
    await box.press('ArrowDown'); // one match: the arrows stay on it
    await box.press('Enter');
    await hidden(picker);
    expect(await box.inputValue()).toBe('Hi Victor Visitor, this is Olivia Owner. How can I help?');
    await box.press('Enter');
    const log = chat.getByRole('log', { name: 'Messages' });
    await visible(log.getByText('Hi Victor Visitor, this is Olivia Owner. How can I help?'));
    await eventually(async () => (await visitorHistory(victor)).some((m) => m.message === 'Hi Victor Visitor, this is Olivia Owner. How can I help?'), 'the filled-in reply at the visitor');

    // Label the conversation from its header: the chip shows there and on the list item.
    await chat.getByRole('button', { name: 'Labels' }).click();
    // The box follows the server's answer (a controlled checkbox): click, then the chip appears.
    await chat.getByRole('checkbox', { name: 'VIP' }).click();
    await visible(chat.locator('.mc-chat-head [data-label="VIP"]'));
    await visible(list.getByRole('button', { name: /Victor Visitor/ }).locator('[data-label="VIP"]'));
    await page.keyboard.press('Escape');

    // Filter by label: only Victor; then all again. A reload keeps the labels (from the server).
    const filter = page.getByRole('combobox', { name: 'Filter by label' });
    await filter.selectOption({ label: 'VIP' });
    await hidden(list.getByRole('button', { name: /Nina Newcomer/ }));
    await visible(list.getByRole('button', { name: /Victor Visitor/ }));
    await filter.selectOption({ label: 'All labels' });
    await visible(list.getByRole('button', { name: /Nina Newcomer/ }));
    await page.reload();
    await visible(page.getByRole('list', { name: 'Conversation list' }).getByRole('button', { name: /Victor Visitor/ }).locator('[data-label="VIP"]'));
    expect(pageErrors).toEqual([]);
    await page.context().close();
  });

  it('keeps a private note in the console while the visitor has the widget open: not shown, not pushed, not in the history', async () => {
    const owner = await registerOwner('Nora Notes');
    const { script } = await integrationSnippet(owner.token);
    fs.writeFileSync(path.join(inject('hostDir'), 'notes-shop.html'), `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Shop</title></head>\n<body><h1>Shop</h1>\n${script}\n</body></html>\n`);

    // The visitor's real widget page, with every socket frame it receives recorded.
    const visitor = await newSession();
    const frames: string[] = [];
    visitor.page.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
    await visitor.page.goto(`${inject('hostUrl')}/notes-shop.html`);
    await visible(visitor.page.getByRole('button', { name: 'Open chat' }), 15_000);
    await visitor.page.getByRole('button', { name: 'Open chat' }).click();
    const panel = visitor.page.getByRole('dialog').first();
    const input = panel.getByRole('textbox', { name: 'Type a message' });
    await visible(input, 15_000);
    await input.fill('I would like a refund please');
    await panel.getByRole('button', { name: 'Send', exact: true }).click();

    const agent = await newSession({ token: owner.token });
    await agent.page.goto(`${base()}/conversations`);
    const list = agent.page.getByRole('list', { name: 'Conversation list' });
    await list.getByRole('button', { name: /I would like a refund/ }).click();
    const chat = agent.page.getByRole('region', { name: /^Chat with/ });
    const log = chat.getByRole('log', { name: 'Messages' });
    await visible(log.getByText('I would like a refund please'));

    await chat.getByRole('button', { name: 'Private note' }).click();
    const noteBox = chat.getByRole('textbox', { name: 'Private note' });
    await noteBox.fill('SECRET: refund approved by finance, do not promise a date');
    await chat.getByRole('button', { name: 'Save private note' }).click();
    const note = log.locator('[data-sender="note"]');
    await visible(note.getByText('SECRET: refund approved by finance'));
    await visible(note.getByText(/Private note · Nora Notes/));
    // Visibly different from a reply: the note's own yellow background.
    expect(await note.locator('.note-bubble').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(255, 246, 204)');
    // The list preview is still the visitor's message.
    await visible(list.getByRole('button', { name: /I would like a refund/ }));

    // Back to a reply: that one reaches the widget live; the note never does.
    await chat.getByRole('button', { name: 'Reply' }).click();
    const box = chat.getByRole('textbox', { name: 'Message' });
    await box.fill('We are looking into your refund.');
    await box.press('Enter');
    await visible(panel.getByText('We are looking into your refund.'), 10_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(await panel.getByText(/SECRET/).count()).toBe(0);
    expect(frames.some((f) => f.includes('We are looking into your refund.'))).toBe(true);
    expect(frames.filter((f) => f.includes('SECRET') || f.includes('"note"'))).toEqual([]);

    // A reload loads the history from the widget's call: still no note.
    await visitor.page.reload();
    await visitor.page.getByRole('button', { name: /^Open chat/ }).click();
    const again = visitor.page.getByRole('dialog').first();
    await visible(again.getByText('We are looking into your refund.'), 15_000);
    expect(await again.getByText(/SECRET/).count()).toBe(0);
    expect(await visitor.page.content()).not.toContain('SECRET');
    // The console still shows the note after a reload.
    await agent.page.reload();
    await agent.page.getByRole('list', { name: 'Conversation list' }).getByRole('button', { name: /refund/ }).click();
    await visible(agent.page.getByRole('log', { name: 'Messages' }).getByText('SECRET: refund approved by finance, do not promise a date'));
    expect(visitor.pageErrors).toEqual([]);
    expect(agent.pageErrors).toEqual([]);
    await visitor.context.close();
    await agent.context.close();
  });
});
