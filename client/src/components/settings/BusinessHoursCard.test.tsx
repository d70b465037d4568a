// @vitest-environment happy-dom
import type { BusinessHoursDto, UserDto } from '@parley/shared';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAuth } from '../../stores/auth';
import { BusinessHoursCard } from './BusinessHoursCard';

/** The "Business Hours" card against a fake server: what it shows, what it sends (a lunch break, closed dates), the form's and the server's refusals beside what they are about, Agents read only. */
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
  stored = { time_zone: 'Europe/Berlin', hours: null, closed_dates: [], open_now: true, next_open_at: null };
  vi.stubGlobal('localStorage', { getItem: () => 'tok', setItem: () => {}, removeItem: () => {} });
  vi.stubGlobal('fetch', async (input: string, init: RequestInit = {}) => {
    const url = new URL(input, 'http://console.test');
    expect(url.pathname).toBe('/api/vms/business-hours');
    if (init.method === 'PUT') {
      const body = JSON.parse(String(init.body));
      sent.push(body);
      if (refuse) return new Response(JSON.stringify({ ...refuse, error: refuse.message }), { status: 422, headers: { 'content-type': 'application/json' } });
      stored = { time_zone: body.time_zone, hours: body.hours, closed_dates: body.closed_dates, open_now: false, next_open_at: '2026-11-30T08:00:00.000Z' };
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

  const button = (name: string) => [...host.querySelectorAll('button')].find((b) => (b.getAttribute('aria-label') ?? b.textContent?.trim()) === name) as HTMLButtonElement | undefined;
  const click = async (el: HTMLElement) => act(async () => el.click());

  it('sets hours per day with a lunch break, closed dates and the zone, sends them, and shows when it opens next', async () => {
    await render();
    await act(async () => radio('Set hours per day').click());
    expect(dayBox('Monday').checked).toBe(true);
    expect(dayBox('Saturday').checked).toBe(false);
    expect(field('Saturday opens')).toBeNull();
    // Monday: 09:00-12:00, then an opening added after lunch (13:00-17:00).
    await type(field('Monday closes')!, '12:00');
    await click(button('Add opening on Monday')!);
    expect(field('Monday opens (2)')!.value).toBe('13:00');
    expect(field('Monday closes (2)')!.value).toBe('17:00');
    await type(field('Monday closes (2)')!, '17:30');
    await click(dayBox('Saturday'));
    await type(field('Saturday opens')!, '10:00');
    await type(field('Saturday closes')!, '14:00');
    await click(dayBox('Friday')); // closed on Fridays
    await type(host.querySelector('select') as HTMLSelectElement, 'America/New_York');
    for (const date of ['2026-12-25', '2026-12-24', '2026-12-25']) {
      await type(field('Closed date')!, date);
      await click(button('Add closed date')!);
    }
    expect([...host.querySelectorAll('ul[aria-label="Closed dates"] li')].map((li) => li.firstChild?.textContent)).toEqual(['Thursday 24 December 2026', 'Friday 25 December 2026']);
    await submit();
    const nine = [{ open: '09:00', close: '17:00' }];
    expect(sent).toEqual([
      {
        time_zone: 'America/New_York',
        hours: { mon: [{ open: '09:00', close: '12:00' }, { open: '13:00', close: '17:30' }], tue: nine, wed: nine, thu: nine, fri: [], sat: [{ open: '10:00', close: '14:00' }], sun: [] },
        closed_dates: ['2026-12-24', '2026-12-25'],
      },
    ]);
    expect(host.textContent).toContain('Business hours saved');
    expect(host.textContent).toMatch(/Closed now; opens Monday \d\d:00 \(America\/New_York\)\./);
    // A removed date is gone from what is sent next.
    await click(button('Remove Thursday 24 December 2026')!);
    await submit();
    expect((sent[1] as { closed_dates: string[] }).closed_dates).toEqual(['2026-12-25']);
  });

  it('refuses overlapping openings beside the later one, with the words the server uses, sending nothing', async () => {
    await render();
    await act(async () => radio('Set hours per day').click());
    await click(button('Add opening on Tuesday')!);
    await type(field('Tuesday opens (2)')!, '16:00');
    await submit();
    expect(sent).toEqual([]);
    const second = field('Tuesday opens (2)')!.parentElement!;
    expect(second.querySelector('[role=alert]')!.textContent).toBe('Openings on the same day must not overlap');
    expect(field('Tuesday opens (1)')!.parentElement!.querySelector('[role=alert]')).toBeNull();
    // Editing the opening clears its error.
    await type(field('Tuesday opens (2)')!, '17:00');
    expect(second.querySelector('[role=alert]')).toBeNull();
  });

  it("shows the server's refusal beside the opening or date it names, nothing lost", async () => {
    await render();
    await act(async () => radio('Set hours per day').click());
    await click(button('Add opening on Tuesday')!);
    await type(field('Closed date')!, '2027-01-01');
    await click(button('Add closed date')!);
    refuse = { errors: { 'hours.tue.1.close': ['The closing time must be after the opening time'], 'closed_dates.0': ['Dates must be real days written YYYY-MM-DD'] }, message: 'The closing time must be after the opening time' };
    await submit();
    expect(field('Tuesday closes (2)')!.parentElement!.querySelector('[role=alert]')!.textContent).toBe('The closing time must be after the opening time');
    expect(host.querySelector('ul[aria-label="Closed dates"] li [role=alert]')!.textContent).toBe('Dates must be real days written YYYY-MM-DD');
    expect(host.textContent).toContain('The closing time must be after the opening time');
    expect(radio('Set hours per day').checked).toBe(true); // nothing lost
    expect(field('Tuesday opens (2)')).not.toBeNull();
  });

  it('is read only for an Agent', async () => {
    asUser(['settings.read']);
    stored = { time_zone: 'UTC', hours: { mon: [{ open: '09:00', close: '12:00' }, { open: '13:00', close: '17:00' }], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] }, closed_dates: ['2026-12-25'], open_now: false, next_open_at: '2026-11-30T09:00:00.000Z' };
    await render();
    expect(host.textContent).toContain('Closed now; opens Monday 09:00 (UTC).');
    expect(field('Monday opens (2)')!.value).toBe('13:00');
    expect(host.textContent).toContain('Friday 25 December 2026');
    expect((host.querySelector('fieldset') as HTMLFieldSetElement).disabled).toBe(true);
    expect([...host.querySelectorAll('button')].map((b) => b.textContent)).toEqual([]);
    expect(field('Closed date')).toBeNull();
  });
});
