import { describe, expect, it } from 'vitest';
import { EVENTS, VISITOR_SIDE_EVENTS } from '@parley/shared';
import { payloadTypes, socketEvents } from './socketEvents';

describe('socket events documentation', () => {
  it('lists every event of shared/src/events.ts with the comment written beside it', () => {
    const docs = socketEvents();
    const names = docs.map((d) => d.name);
    for (const name of [...Object.values(EVENTS), ...Object.values(VISITOR_SIDE_EVENTS)]) expect(names, name).toContain(name);
    for (const d of docs) expect(d.description.length, d.name).toBeGreaterThan(5);
    expect(docs.find((d) => d.name === 'message.created')?.description).toContain('MessageCreatedPayload');
  });

  it('shows the payload types as written', () => {
    const types = payloadTypes().join('\n');
    expect(types).toContain('export interface MessageCreatedPayload {');
    expect(types).toContain('export interface TypingPayload {');
  });
});
