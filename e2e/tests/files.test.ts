import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { base, eventually, integrationSnippet, registerOwner } from '../support/api';
import { closeBrowser, newSession, visible } from '../support/browser';
import { makePng } from '../support/png';

afterAll(closeBrowser);

const pdf = (title: string) => Buffer.from(`%PDF-1.4\n% ${title}\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n`);

describe('documents both ways (issue 13, files)', () => {
  it('a visitor sends a PDF from the widget and an agent one from the console: file chips with name and size, downloads as attachments; an image pasted into the widget is sent', async () => {
    const owner = await registerOwner('Fiona Files');
    const { script } = await integrationSnippet(owner.token);
    fs.writeFileSync(path.join(inject('hostDir'), 'files.html'), `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Files</title></head>\n<body><h1>Paperwork</h1>\n${script}\n</body></html>\n`);
    const hostPage = `${inject('hostUrl')}/files.html`;

    // The visitor sends a PDF through the widget's own "Attach file" control.
    const visitor = await newSession();
    await visitor.page.goto(hostPage);
    await visitor.page.getByRole('button', { name: 'Open chat' }).click();
    const panel = visitor.page.getByRole('dialog');
    const input = panel.getByRole('textbox', { name: 'Type a message' });
    await visible(input, 15_000);
    const quote = pdf('quote');
    const [chooser] = await Promise.all([visitor.page.waitForEvent('filechooser'), panel.getByRole('button', { name: 'Attach file' }).click()]);
    await chooser.setFiles({ name: 'Quote request.pdf', mimeType: 'application/pdf', buffer: quote });
    const sentChip = panel.locator('a.fc', { hasText: 'Quote request.pdf' });
    await visible(sentChip);
    expect(await sentChip.textContent()).toContain(`${quote.length} B`);

    // The agent sees it as a chip in the console and downloads it under its name.
    const agent = await newSession({ token: owner.token });
    await agent.page.goto(`${base()}/conversations`);
    await agent.page.getByRole('list', { name: 'Conversation list' }).getByRole('button').first().click();
    const log = agent.page.getByRole('log', { name: 'Messages' });
    const consoleChip = log.locator('a.file-chip', { hasText: 'Quote request.pdf' });
    await visible(consoleChip);
    const href = await consoleChip.getAttribute('href');
    const got = await fetch(new URL(href!, base()));
    expect(got.headers.get('content-disposition')).toBe('attachment; filename="Quote request.pdf"');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await got.arrayBuffer()).equals(quote)).toBe(true);

    // The agent answers with a PDF through the composer's "Attach file".
    const invoice = pdf('invoice');
    const [agentChooser] = await Promise.all([agent.page.waitForEvent('filechooser'), agent.page.getByRole('button', { name: 'Attach file' }).click()]);
    await agentChooser.setFiles({ name: 'Invoice 2026-11.pdf', mimeType: 'application/pdf', buffer: invoice });
    await visible(agent.page.locator('.attach-preview .file-chip', { hasText: 'Invoice 2026-11.pdf' }));
    await agent.page.getByRole('button', { name: 'Send message' }).click();
    await visible(log.locator('a.file-chip', { hasText: 'Invoice 2026-11.pdf' }));

    // The visitor gets it live as a chip that downloads it.
    const received = panel.locator('a.fc', { hasText: 'Invoice 2026-11.pdf' });
    await visible(received);
    const download = await fetch((await received.getAttribute('href'))!);
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="Invoice 2026-11.pdf"');
    expect(Buffer.from(await download.arrayBuffer()).equals(invoice)).toBe(true);

    // An image pasted into the widget's text box is sent as an image (preview, not a chip).
    const png = makePng(6, 6).toString('base64');
    await input.evaluate((el, b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'pasted.png', { type: 'image/png' }));
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    }, png);
    await eventually(() => log.locator('img[src*="/storage/"]').count().then((n) => n > 0), 'the pasted image in the console');
    expect(visitor.pageErrors).toEqual([]);
    expect(agent.pageErrors).toEqual([]);
    await visitor.context.close();
    await agent.context.close();
  });
});
