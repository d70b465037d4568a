import { afterEach, describe, expect, it, vi } from 'vitest';
import { browserTimeZone } from '../lang.js';
import { createApi } from './api.js';

/** Records the widget's calls and answers each with the next canned response. */
function fakeServer(...answers: [number, object][]) {
  const calls: { url: string; body: Record<string, unknown> }[] = [];
  vi.stubGlobal('fetch', async (url: string, init: { body?: string }) => {
    calls.push({ url, body: init.body ? JSON.parse(init.body) : {} });
    const [status, json] = answers.shift() ?? [500, {}];
    return new Response(JSON.stringify(json), { status, headers: { 'content-type': 'application/json' } });
  });
  return calls;
}

afterEach(() => vi.unstubAllGlobals());

describe("the visitor's time zone (issue 16)", () => {
  it("is the browser's IANA zone", () => {
    expect(browserTimeZone()).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(browserTimeZone()).toMatch(/^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/);
  });

  it('goes with the new visitor, and a zone the server refuses does not stop the visitor', async () => {
    const ok = fakeServer([201, { data: { visitor_id: 'v1', visitor_token: 't1' } }]);
    const api = createApi('http://parley.test', 'key', () => undefined);
    const base = { page_url: 'https://shop.example/', referrer: '', locale: 'de' };
    expect(await api.createVisitor({ ...base, time_zone: 'Asia/Tokyo' })).toEqual({ visitor_id: 'v1', visitor_token: 't1' });
    expect(ok[0]?.body).toMatchObject({ unique_code: 'key', time_zone: 'Asia/Tokyo' });
    // The key in the query too: the server's refusal gate reads it there, before the body.
    expect(ok[0]?.url).toBe('http://parley.test/api/widget/visitors?unique_code=key');

    const refused = fakeServer(
      [422, { message: 'Please choose a valid time zone', error: 'Please choose a valid time zone', errors: { time_zone: ['Please choose a valid time zone'] } }],
      [201, { data: { visitor_id: 'v2', visitor_token: 't2' } }],
    );
    expect(await api.createVisitor({ ...base, time_zone: 'Mars/Olympus' })).toEqual({ visitor_id: 'v2', visitor_token: 't2' });
    expect(refused).toHaveLength(2);
    expect(refused[1]?.body).not.toHaveProperty('time_zone');
  });
});
