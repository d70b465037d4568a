import { describe, expect, it } from 'vitest';
import { fillCannedReply } from '@parley/shared';
import { matchCanned, slashQuery } from './cannedPicker';

const replies = [
  { id: 1, title: 'Greeting', text: 'Hi {{visitor.name}}, {{agent.name}} here.', shortcut: 'hello' },
  { id: 2, title: 'Shipping times', text: 'Two days.', shortcut: 'ship' },
  { id: 3, title: 'Say hello again', text: 'Welcome back!', shortcut: 'back' },
];

describe('the composer slash list', () => {
  it('opens on a / at the start or after a space, at the end of the text', () => {
    expect(slashQuery('/')).toEqual({ query: '', start: 0 });
    expect(slashQuery('/He')).toEqual({ query: 'he', start: 0 });
    expect(slashQuery('Thanks! /sh')).toEqual({ query: 'sh', start: 8 });
    expect(slashQuery('and/or')).toBeNull();
    expect(slashQuery('/hello there')).toBeNull();
    expect(slashQuery('')).toBeNull();
  });

  it('matches shortcut prefixes first, then shortcuts or titles containing the query', () => {
    expect(matchCanned(replies, '').map((r) => r.id)).toEqual([1, 2, 3]);
    expect(matchCanned(replies, 'hel').map((r) => r.id)).toEqual([1, 3]);
    expect(matchCanned(replies, 'ship').map((r) => r.id)).toEqual([2]);
    expect(matchCanned(replies, 'zzz')).toEqual([]);
  });

  it('fills the visitor and agent names in, leaving other braces alone', () => {
    expect(fillCannedReply(replies[0]!.text, { visitor: 'Vera', agent: 'Ada' })).toBe('Hi Vera, Ada here.');
    expect(fillCannedReply('{{ visitor.name }} {{order.id}}', { visitor: 'Vera', agent: 'Ada' })).toBe('Vera {{order.id}}');
  });
});
