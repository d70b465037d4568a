import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base, createVisitor, eventually, integrationSnippet, registerOwner, visitorSays } from '../support/api';
import { closeBrowser, newSession, visible, waitForPath } from '../support/browser';

/** A local receiver that verifies signatures the way the documentation shows. */
const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
let receiver: http.Server;
let url = '';
beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/parley`;
});
afterAll(async () => {
  await closeBrowser();
  await new Promise<void>((r) => receiver.close(() => r()));
});

describe('webhooks screen (issue 14)', () => {
  it('adds an endpoint, receives a signed message.created, shows it in the delivery log and resends it', async () => {
    const owner = await registerOwner('Wes Webhooks');
    const { key: widgetKey } = await integrationSnippet(owner.token);
    const { page, pageErrors } = await newSession({ token: owner.token });
    await page.goto(`${base()}/api-access`);
    await waitForPath(page, '/api-access');
    await page.getByLabel('Endpoint URL').fill(url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await (await visible(page.getByLabel('Signing secret'))).inputValue()).trim();
    expect(secret).toMatch(/^whsec_/);

    const visitor = await createVisitor(widgetKey, { name: 'Wanda' });
    await visitorSays(visitor, 'Is this thing on?');
    const first = await eventually(async () => received.find((r) => r.headers['parley-webhook-event'] === 'message.created'), 'a delivery');
    const ts = String(first.headers['parley-webhook-timestamp']);
    const expected = `v1=${createHmac('sha256', secret).update(`${ts}.${first.body}`).digest('hex')}`;
    expect(first.headers['parley-webhook-signature']).toBe(expected);
    const body = JSON.parse(first.body);
    expect(body).toMatchObject({ type: 'message.created', id: first.headers['parley-webhook-id'] });
    expect(body.data.message.message).toBe('Is this thing on?');

    await page.getByRole('button', { name: 'Delivery log' }).click();
    const log = page.getByRole('table', { name: `Deliveries to ${url}` });
    await visible(log.getByRole('row', { name: /message\.created delivered 200 1/ }));
    await log.getByRole('button', { name: 'Resend' }).first().click();
    await eventually(async () => received.filter((r) => r.headers['parley-webhook-id'] === body.id).length >= 2, 'the resend');
    expect(pageErrors).toEqual([]);
  });
});
