import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, rateLimitedText, request } from './api';

afterEach(() => vi.unstubAllGlobals());

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  vi.stubGlobal('fetch', async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } }));

describe('request on 429', () => {
  it('raises a calm message saying when to try again, from Retry-After', async () => {
    answer(429, { message: 'Too many requests. Please try again later.', error: 'Too many requests. Please try again later.' }, { 'Retry-After': '12' });
    const err = await request('POST', '/api/vms/login', { email: 'a@b.c' }, { auth: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, retryAfter: 12, message: 'Too many requests. Please try again in 12 seconds.', error: 'Too many requests. Please try again in 12 seconds.' });
  });

  it('words minutes and a missing Retry-After calmly too', () => {
    expect(rateLimitedText(1)).toBe('Too many requests. Please try again in 1 second.');
    expect(rateLimitedText(900)).toBe('Too many requests. Please try again in 15 minutes.');
    expect(rateLimitedText(undefined)).toBe('Too many requests. Please try again in a moment.');
  });

  it('leaves other errors as the server worded them', async () => {
    answer(422, { message: 'The email field is required', error: 'The email field is required' });
    await expect(request('POST', '/api/vms/login', {}, { auth: false })).rejects.toMatchObject({ status: 422, message: 'The email field is required' });
  });
});
