// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import type { PublicSettings } from '../types.js';
import { View } from './render.js';

const settings = { name: 'Acme', title: '', color: '#3366ff', avatar_url: '', initial_greeting: 'Hello!', follow_up_greeting: '', agent_online: true, powered_by: '' } as unknown as PublicSettings;

function openView(s: PublicSettings = settings) {
  const host = document.createElement('div');
  document.body.append(host);
  const root = host.attachShadow({ mode: 'open' });
  const sent: string[] = [];
  const view = new View(root, { base: '', settings: s, handlers: { send: (text) => sent.push(text) } });
  view.setOpen(true);
  return { root, view, sent, input: root.querySelector('textarea') as HTMLTextAreaElement };
}

describe('the composer keeps the focus while the team is said to be online', () => {
  it('an "online" presence push while the composer is shown leaves it, its text and the focus alone', () => {
    const { root, view, input } = openView();
    expect(root.activeElement).toBe(input);
    input.value = 'Hello from the shop';
    // The socket says "online" on every (re)connect, whenever the visitor happens to be typing.
    view.setOffline(false);
    expect(root.activeElement).toBe(input);
    expect(input.value).toBe('Hello from the shop');
  });

  it('still swaps the offline form for the composer when the team comes online', () => {
    const { root, view } = openView({ ...settings, agent_online: false });
    expect(root.querySelector('form.o')).not.toBeNull();
    view.setOffline(false);
    expect(root.querySelector('form.o')).toBeNull();
    expect(root.querySelector('form.c textarea')).not.toBeNull();
  });

  it('carries what the visitor wrote in the offline form, and the focus, to the composer when the team comes online', () => {
    const { root, view } = openView({ ...settings, agent_online: false });
    const box = root.querySelector('form.o textarea') as HTMLTextAreaElement;
    box.focus();
    box.value = 'Do you ship to Norway?';
    view.setOffline(false);
    const input = root.querySelector('form.c textarea') as HTMLTextAreaElement;
    expect(input.value).toBe('Do you ship to Norway?');
    expect(root.activeElement).toBe(input);
  });
});
