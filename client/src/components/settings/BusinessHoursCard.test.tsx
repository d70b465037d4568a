// @vitest-environment happy-dom
import type { BusinessHoursDto, UserDto } from '@parley/shared';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAuth } from '../../stores/auth';
import { BusinessHoursCard } from './BusinessHoursCard';

/** The "Business Hours" card against a fake server: what it shows, what it sends, the server's refusals, Agents read only. */
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let stored: BusinessHoursDto;
let sent: unknown[] = [];
let refuse: { errors: Record<string, string[]>; message: string } | null = null;
let root: Root;
let host: HTMLDivElement;

const asUser = (permissions: string[]) => useAuth.setState({ user: { id: 1, name: 'Olivia', permissions } as unknown as UserDto });

beforeEach(() => {
  sent = [];
  refuse = null;
  stored = { time_zone: 'Europe/Berlin', hours: null, open_now: true, next_open_at: null };
  vi.stubGlobal('localStorage', { getItem: () => 'tok', setItem: () => {}, removeItem: () => {} });
  vi.stubGlobal('fetch', async (input: string, init: RequestInit = {}) => {
    const url = new URL(input, 'http://console.test');
    expect(url.pathname).toBe('/api/vms/business-hours');
    if (init.method === 'PUT') {
      const body = JSON.parse(String(init.body));
      sent.push(body);
      if (refuse) return new Response(JSON.stringify({ ...refuse, error: refuse.message }), { status: 422, headers: { 'content-type': 'application/json' } });
      stored = { time_zone: body.time_zone, hours: body.hours, open_now: false, next_open_at: '2026-11-30T08:00:00.000Z' };
    }
    return new Response(JSON.stringify({ message: 'success', data: stored }), { status: 200, headers: { 'content-type': 'application/json' } });
  });
  asUser(['settings.read', 'settings.write']);
  host = document.createElement('div');
  document.body.append(host);
  root = createRoot(host);
});
afterEach(() => {
  act(() => root.unmount());
  host.remove();
  vi.unstubAllGlobals();
});

const render = async () => {
  await act(async () => root.render(<BusinessHoursCard />));
  await act(async () => {});
};
const radio = (name: string) => [...host.querySelectorAll('label')].find((l) => l.textContent?.trim() === name)!.querySelector('input') as HTMLInputElement;
const dayBox = (day: string) => [...host.querySelectorAll('th label')].find((l) => l.textContent?.trim() === day)!.querySelector('input') as HTMLInputElement;
const field = (label: string) => host.querySelector(`input[aria-label="${label}"]`) as HTMLInputElement | null;
const submit = async () => {
  await act(async () => (host.querySelector('form') as HTMLFormElement).requestSubmit());
  await act(async () => {});
};
/** React reads a controlled input's value through the native setter. */
const type = async (input: HTMLInputElement | HTMLSelectElement, value: string) => {
  const proto = input instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  await act(async () => {
    Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(input, value);
    input.dispatchEvent(new Event(input instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
  });
};

describe('Business Hours card', () => {
  it('shows "always open" and the account zone by default', async () => {
    await render();
    expect(radio('Always open').checked).toBe(true);
    expect((host.querySelector('select') as HTMLSelectElement).value).toBe('Europe/Berlin');
    expect(host.textContent).toContain('Open now.');
    expect(host.querySelector('table')).toBeNull();
  });

  it('sets hours per day (weekdays ready, weekend closed), sends them with the zone, and shows when it opens next', async () => {
    await render();
    await act(async () => radio('Set hours per day').click());
    expect(dayBox('Monday').checked).toBe(true);
    expect(dayBox('Saturday').checked).toBe(false);
    expect(field('Saturday opens')).toBeNull();
    await act(async () => dayBox('Saturday').click());
    await type(field('Saturday opens')!, '10:00');
    await type(field('Saturday closes')!, '14:00');
    await act(async () => dayBox('Friday').click()); // closed on Fridays
    await type(host.querySelector('select') as HTMLSelectElement, 'America/New_York');
    await submit();
    const nine = { open: '09:00', close: '17:00' };
    expect(sent).toEqual([{ time_zone: 'America/New_York', hours: { mon: nine, tue: nine, wed: nine, thu: nine, fri: null, sat: { open: '10:00', close: '14:00' }, sun: null } }]);
    expect(host.textContent).toContain('Business hours saved');
    expect(host.textContent).toMatch(/Closed now; opens Monday \d\d:00 \(America\/New_York\)\./);
  });

  it("shows the server's refusal beside the day", async () => {
    await render();
    await act(async () => radio('Set hours per day').click());
    refuse = { errors: { 'hours.tue.close': ['The closing time must be after the opening time'] }, message: 'The closing time must be after the opening time' };
    await type(field('Tuesday closes')!, '08:00');
    await submit();
    const row = [...host.querySelectorAll('tr')].find((r) => r.textContent?.includes('Tuesday'))!;
    expect(row.querySelector('[role=alert]')!.textContent).toBe('The closing time must be after the opening time');
    expect(radio('Set hours per day').checked).toBe(true); // nothing lost
  });

  it('is read only for an Agent', async () => {
    asUser(['settings.read']);
    stored = { time_zone: 'UTC', hours: { mon: { open: '09:00', close: '17:00' } }, open_now: false, next_open_at: '2026-11-30T09:00:00.000Z' };
    await render();
    expect(host.textContent).toContain('Closed now; opens Monday 09:00 (UTC).');
    expect((host.querySelector('fieldset') as HTMLFieldSetElement).disabled).toBe(true);
    expect([...host.querySelectorAll('button')].some((b) => b.textContent?.includes('Save'))).toBe(false);
  });
});
