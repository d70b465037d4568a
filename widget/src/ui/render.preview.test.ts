// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import type { PublicSettings } from '../types.js';
import { View, renderPreview } from './render.js';

const empty = { name: '', title: '', color: '#3366ff', avatar_url: '', initial_greeting: '', follow_up_greeting: '', agent_online: true, powered_by: 'Powered by Parley' } as unknown as PublicSettings;

describe("the console's onboarding preview (renderPreview)", () => {
  it('shows the fallbacks for empty fields, both greetings, an inert composer and its own styles', () => {
    const container = document.createElement('div');
    document.body.append(container);
    renderPreview(container, empty);
    const root = container.shadowRoot!;
    expect(root.querySelector('.hn b')?.textContent).toBe('Hi there! 👋');
    expect(root.querySelector('.hn .st')?.textContent).toBe('Typically replies in minutes');
    expect([...root.querySelectorAll('.bu')].map((b) => b.textContent)).toEqual(['Hello!', 'How can we assist?']);
    expect(root.querySelector('textarea')?.disabled).toBe(true);
    expect(root.querySelector('textarea')?.getAttribute('aria-label')).toBe('Message (preview)');
    expect(root.querySelector('.p')?.hasAttribute('hidden')).toBe(false);
    expect(root.querySelector('style')?.textContent).toContain('.pv .p{position:relative');
  });

  it("the visitor's panel carries none of it: no preview texts, styles or fallbacks", () => {
    const host = document.createElement('div');
    document.body.append(host);
    const view = new View(host.attachShadow({ mode: 'open' }), { base: '', settings: { ...empty, name: 'Acme' } });
    view.setMessages([]);
    const root = host.shadowRoot!;
    expect(root.querySelector('.hn .st')).toBeNull();
    expect(root.querySelectorAll('.bu')).toHaveLength(0);
    expect(root.querySelector('textarea')?.disabled).toBe(false);
    expect(root.querySelector('style')?.textContent).not.toContain('.pv .p{');
  });
});
