import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** I#12 item 9 (PRODUCT.md section 11): a plan lists only what the product does today. */
describe('plan features', () => {
  it('promise no API access yet, and Single sign-on only as an Enterprise line arranged on request', async () => {
    const res = await call(t.app, 'GET', '/api/plans');
    const plans = res.body.data as { name: string; features: string[] }[];
    const byName = Object.fromEntries(plans.map((p) => [p.name, p.features]));
    for (const features of Object.values(byName)) expect(features).not.toContain('API access');
    expect(byName.Professional).toEqual(['Unlimited chats', 'AI chatbot', 'Advanced analytics', 'Priority support', 'Custom branding', 'Team collaboration']);
    expect(byName.Enterprise).toContain('Single sign-on on request');
    expect(byName.Enterprise).not.toContain('Single sign-on');
  });
});
