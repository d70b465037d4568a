// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import type { PublicSettings } from '../types.js';
import * as AiAnswer from './aiAnswer.js';
import { aiTexts } from './aiAnswer.js';
import type { ChatMessage } from './merge.js';
import { View } from './render.js';

const settings = { name: 'Acme Support', title: 'We help', color: '#3366ff', avatar_url: '', initial_greeting: '', follow_up_greeting: '', agent_online: true, powered_by: '' } as unknown as PublicSettings;

function view(handlers: { vote?: (id: number, v: string) => void; handover?: () => void } = {}) {
  const host = document.createElement('div');
  document.body.append(host);
  const v = new View(host.attachShadow({ mode: 'open' }), { base: 'https://chat.example.com', settings, handlers });
  v.setOpen(true);
  v.setAi(AiAnswer);
  return { v, root: host.shadowRoot! };
}

const at = '2026-11-24T06:00:00.000Z';
const base = { visitor_id: 'v', file_path: '', author_id: null, author_name: null, client_id: null, created_at: at };
const asked: ChatMessage = { ...base, id: 1, message: 'Do you ship abroad?', sender_type: 'visitor' };
const answer = (ai: ChatMessage['ai'], id = 2): ChatMessage => ({ ...base, id, message: 'We ship worldwide in 3-5 days.', sender_type: 'bot', ai });
const rows = (root: ShadowRoot) => [...root.querySelectorAll('.ls > .m')] as HTMLElement[];
const buttons = (row: HTMLElement) => [...row.querySelectorAll('button')].map((b) => b.textContent);

describe("the assistant's answer in the widget", () => {
  it('shows as a plain bot message until its view has loaded', () => {
    const host = document.createElement('div');
    const v = new View(host.attachShadow({ mode: 'open' }), { base: '', settings });
    v.setMessages([answer({ citation: { title: 'Shipping', url: 'https://shop.example.com/shipping' }, vote: null })]);
    expect(rows(host.shadowRoot!)[0]!.querySelector('.a')!.textContent).toBe('Acme Support');
    v.setAi(AiAnswer);
    v.setMessages([answer({ citation: { title: 'Shipping', url: 'https://shop.example.com/shipping' }, vote: null })]);
    expect(rows(host.shadowRoot!)[0]!.querySelector('.a')!.textContent).toBe('Assistant AI');
  });

  it('shows the assistant with the AI marker, the cited page as a link in a new tab, and the controls', () => {
    const { v, root } = view();
    v.setMessages([asked, answer({ citation: { title: 'Shipping', url: 'https://shop.example.com/shipping' }, vote: null })]);
    const row = rows(root)[1]!;
    expect(row.querySelector('.a')!.textContent).toBe('Assistant AI');
    expect(row.querySelector('.a abbr')!.textContent).toBe('AI');
    const link = row.querySelector('.ci a') as HTMLAnchorElement;
    expect(row.querySelector('.ci')!.textContent).toBe('Source: Shipping');
    expect([link.getAttribute('href'), link.target, link.rel]).toEqual(['https://shop.example.com/shipping', '_blank', 'noopener']);
    expect(row.textContent).toContain('Was this helpful?');
    expect(buttons(row)).toEqual(['Yes', 'No', 'Talk to a person']);
    // The visitor's own message has none of it.
    expect(rows(root)[0]!.querySelector('.ci, .fb')).toBeNull();
  });

  it("names a document without a link, and never links a source that is not a web page", () => {
    const { v, root } = view();
    v.setMessages([answer({ citation: { title: 'Care guide.pdf', url: null }, vote: null }), answer({ citation: { title: 'Bad', url: 'javascript:alert(1)' }, vote: null }, 3)]);
    const [doc, bad] = rows(root);
    expect(doc!.querySelector('.ci')!.textContent).toBe('Source: Care guide.pdf');
    expect(doc!.querySelector('.ci a')).toBeNull();
    expect(bad!.querySelector('.ci a')).toBeNull();
  });

  it('sends the vote and the hand-over; once voted it thanks, once handed over "Talk to a person" goes', () => {
    const vote = vi.fn();
    const handover = vi.fn();
    const { v, root } = view({ vote, handover });
    v.setMessages([asked, answer({ citation: null, vote: null })]);
    const row = rows(root)[1]!;
    expect(row.querySelector('.ci')).toBeNull(); // a learned answer cites nothing
    (row.querySelectorAll('button')[1] as HTMLButtonElement).click();
    expect(vote).toHaveBeenCalledWith(2, 'not_helpful');
    (row.querySelector('.hp') as HTMLButtonElement).click();
    expect(handover).toHaveBeenCalledTimes(1);

    v.setHandedOver();
    v.setMessages([asked, answer({ citation: null, vote: 'not_helpful' })]);
    const after = rows(root)[1]!;
    expect(buttons(after)).toEqual([]);
    expect(after.querySelector('[role=status]')!.textContent).toBe('Thanks for letting us know.');
  });

  it('a bot message that is not an answer (the hand-over line) shows as before', () => {
    const { v, root } = view();
    v.setMessages([{ ...base, id: 5, message: "I'm asking a member of our team to take over.", sender_type: 'bot' }]);
    const row = rows(root)[0]!;
    expect(row.querySelector('.a')!.textContent).toBe('Acme Support');
    expect(row.querySelector('.fb')).toBeNull();
  });

  it('speaks the visitor\'s language where translated, English otherwise', () => {
    expect(aiTexts('de').person).toBe('Mit einem Menschen sprechen');
    expect(aiTexts('pt-br').yes).toBe('Sim');
    expect(aiTexts('sw').person).toBe('Talk to a person');
  });
});
