import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { apiCall, eventually, integrationSnippet, type MessageDto, registerOwner } from '../support/api';
import { closeBrowser, getBrowser, visible } from '../support/browser';

afterAll(closeBrowser);

function hostPage(file: string, lang: string, script: string): string {
  fs.writeFileSync(path.join(inject('hostDir'), file), `<!doctype html>\n<html lang="${lang}"><head><meta charset="utf-8"><title>${lang}</title></head>\n<body><h1>${lang}</h1>\n${script}\n</body></html>\n`);
  return `${inject('hostUrl')}/${file}`;
}

describe('languages (issue 13)', () => {
  it('a Russian browser: the launcher counts unread replies with Russian plural forms', async () => {
    const owner = await registerOwner('Olga Owner');
    const { script } = await integrationSnippet(owner.token);
    const url = hostPage('ru.html', 'ru', script);
    const context = await (await getBrowser()).newContext({ locale: 'ru-RU', viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url);
    const launcher = page.getByRole('button', { name: /^Открыть чат/ });
    await launcher.click();
    const panel = page.getByRole('dialog');
    await expect.poll(() => panel.getAttribute('lang')).toBe('ru');
    const input = panel.getByRole('textbox', { name: 'Напишите сообщение' });
    await visible(input, 15_000);
    await input.fill('Здравствуйте');
    // The footer credit speaks Russian too.
    await visible(panel.getByText('Работает на Parley'));
    await panel.getByRole('button', { name: 'Отправить', exact: true }).click();
    // A refused attachment is explained in Russian too.
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), panel.getByRole('button', { name: 'Прикрепить файл' }).click()]);
    await chooser.setFiles({ name: 'setup.exe', mimeType: 'application/x-msdownload', buffer: Buffer.from('MZ') });
    await visible(panel.getByText('Можно отправлять только изображения, PDF, TXT, CSV, DOCX и XLSX.'));
        // The visitor closes the panel; the agent answers.
    await panel.getByRole('button', { name: 'Закрыть чат' }).first().click();
    const visitorId = await eventually(async () => {
      const list = await apiCall<{ data: { visitor_id?: string; id?: string }[] }>('GET', '/api/vms/conversations', { token: owner.token });
      const row = (list.body.data ?? [])[0] as { visitor_id?: string; visitor?: { id: string } } | undefined;
      return row?.visitor_id ?? row?.visitor?.id;
    }, 'the conversation');
    const reply = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const res = await apiCall<{ data: MessageDto }>('POST', '/api/vms/messages', { token: owner.token, body: { visitor_id: visitorId, message: `Ответ ${i}` } });
        expect(res.status).toBeLessThan(300);
      }
    };
    const label = () => page.locator('parley-widget').evaluate((h) => h.shadowRoot?.querySelector('button.l')?.getAttribute('aria-label') ?? '');
    await reply(1);
    await expect.poll(label, { timeout: 8000 }).toBe('Открыть чат (1 непрочитанное)');
    await reply(2);
    await expect.poll(label, { timeout: 8000 }).toBe('Открыть чат (3 непрочитанных)');
    await reply(2);
    await expect.poll(label, { timeout: 8000 }).toBe('Открыть чат (5 непрочитанных)');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('an owner forcing Arabic: right-to-left panel, the launcher on the left and named in Arabic before the UI loads, the Arabic greeting', async () => {
    const owner = await registerOwner('Amal Owner');
    const greeting = 'مرحبا! كيف يمكننا مساعدتك اليوم؟';
    const saved = await apiCall('PUT', '/api/vms/widget-language', { token: owner.token, body: { language: 'ar', greetings_by_language: { ar: { initial_greeting: greeting, follow_up_greeting: '' } } } });
    expect(saved.status).toBe(200);
    const { script } = await integrationSnippet(owner.token);
    const url = hostPage('ar.html', 'ar', script);
    // An English browser: the owner's choice wins.
    const context = await (await getBrowser()).newContext({ locale: 'en-US', viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    // Hold the UI chunk back, to see the loader's launcher alone first.
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    await page.route(/\/widget\/ui-[\w]+\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(url);
    const host = page.locator('parley-widget');
    await expect.poll(() => host.evaluate((h) => h.shadowRoot?.querySelector('button.l') !== null)).toBe(true);
    const launcherBox = () => host.evaluate((h) => h.shadowRoot!.querySelector('button.l')!.getBoundingClientRect().toJSON() as { left: number; right: number });
    const before = await launcherBox();
    expect(before.left).toBeLessThan(40);
    expect(await host.getAttribute('dir')).toBe('rtl');
    // Named in Arabic already, while the UI is still held back.
    await expect.poll(() => host.evaluate((h) => h.shadowRoot!.querySelector('button.l')!.getAttribute('aria-label'))).toBe('افتح الدردشة');
    release();
    const launcher = page.getByRole('button', { name: /^افتح الدردشة/ });
    await visible(launcher, 15_000);
    await launcher.click();
    const panel = page.getByRole('dialog');
    await visible(panel.getByText(greeting), 15_000);
    expect(await panel.getAttribute('dir')).toBe('rtl');
    expect(await panel.getAttribute('lang')).toBe('ar');
    const box = (await panel.boundingBox())!;
    expect(box.x).toBeLessThan(40);
    const after = await launcherBox();
    expect(after.left).toBeLessThan(40);
    expect(errors).toEqual([]);
    await context.close();
  });
});
