import { describe, expect, it } from 'vitest';
import { registerPasswordLabel, registerPasswordScore, settingsPasswordStrength } from './auth.js';
import { accountInfoSchema, chatWidgetSettingsSchema, greetingsSchema, widgetSettingsSchema } from './settings.js';

const firstError = (r: { success: boolean; error?: { issues: { message: string }[] } }) => r.error?.issues[0]?.message;

describe('register strength meter (SPEC.md section 5)', () => {
  it.each([
    ['', 0, 'Very Weak'],
    ['abc', 1, 'Very Weak'],
    ['abcdefgh', 2, 'Weak'],
    ['Abcdefgh', 3, 'Fair'],
    ['Abcdefg1', 4, 'Good'],
    ['Abcdef1!', 5, 'Strong'],
  ])('%j scores %i (%s)', (pw, score, label) => {
    expect(registerPasswordScore(pw)).toBe(score);
    expect(registerPasswordLabel(score)).toBe(label);
  });
});

describe('settings strength indicator', () => {
  it.each([
    ['abc', 0, 'Weak'],
    ['abcdefgh', 25, 'Weak'],
    ['Abcdefgh', 50, 'Fair'],
    ['Abcdefg1', 75, 'Good'],
    ['Abcdef1!', 100, 'Strong'],
  ])('%j -> %i %s', (pw, score, label) => {
    expect(settingsPasswordStrength(pw)).toEqual({ score, label });
  });
});

describe('account info', () => {
  it.each(['example.com', 'https://example.com', 'http://shop.example.co.uk/path?x=1', ''])('accepts URL %j', (url) => {
    expect(accountInfoSchema.safeParse({ website_url: url }).success).toBe(true);
  });
  it.each(['example', 'ftp://example.com', 'http://', 'javascript:alert(1)'])('refuses URL %j', (url) => {
    expect(firstError(accountInfoSchema.safeParse({ website_url: url }))).toBe('Please enter a valid URL');
  });
  it.each(['+1 555-123-4567', '5551234', '+44 20 7946 0958'])('accepts phone %j', (phone) => {
    expect(accountInfoSchema.safeParse({ phone_number: phone }).success).toBe(true);
  });
  it.each(['12345', 'call me', '+1 (555) 123', '1234567890123456'])('refuses phone %j', (phone) => {
    expect(firstError(accountInfoSchema.safeParse({ phone_number: phone }))).toBe('Please enter a valid phone number');
  });
});

describe('customizer and greetings', () => {
  it('treats whitespace-only as empty', () => {
    const r = chatWidgetSettingsSchema.safeParse({ name: '  ', title: '\t', color: '#667eea' });
    expect(r.error?.issues.map((i) => i.message)).toEqual(['Name is required', 'Title or department is required']);
    expect(firstError(greetingsSchema.safeParse({ initial_greeting: ' ' }))).toBe('Initial greeting is required');
  });
  it('defaults notification toggles to on and reads them from a JSON string', () => {
    const r = widgetSettingsSchema.parse({ name: 'A', color: '#112233', email_notifications: '{"newChats":false}' });
    expect(r.email_notifications).toEqual({ newChats: false, offlineMessages: true, missedChats: true });
  });
  it('reads hide_branding from a form string or a boolean, absent when not sent', () => {
    const base = { name: 'A', color: '#112233' };
    expect(widgetSettingsSchema.parse({ ...base, hide_branding: 'true' }).hide_branding).toBe(true);
    expect(widgetSettingsSchema.parse({ ...base, hide_branding: 'false' }).hide_branding).toBe(false);
    expect(widgetSettingsSchema.parse({ ...base, hide_branding: true }).hide_branding).toBe(true);
    expect(widgetSettingsSchema.parse(base).hide_branding).toBeUndefined();
    expect(firstError(widgetSettingsSchema.safeParse({ ...base, hide_branding: 'yes please' }))).toBe('Must be true or false');
  });
});
