import { describe, expect, it } from 'vitest';
import { QuietPolls } from './quietPolls.js';

// Issue 15: a poll's "nothing new" remembered per token (routes/widget/widget.ts), dropped by any
// push to the visitor's room heard on the node (realtime/fanout.ts).
const quiet = (...args: ConstructorParameters<typeof QuietPolls>) => Object.assign(new QuietPolls(...args), { hearsAll: true });
const answer = (seq: number, cursor = 'c1') => ({ visitorId: 'v1', cursor, etag: 'W/"e"', seq });

describe('QuietPolls', () => {
  it('answers the same token and cursor from memory until the visitor changes', () => {
    const polls = quiet();
    polls.keep('t1', answer(polls.begin()));
    expect(polls.lookup('t1', 'c1')?.etag).toBe('W/"e"');
    expect(polls.lookup('t1', 'c2')).toBeUndefined(); // another cursor
    expect(polls.lookup('t2', 'c1')).toBeUndefined(); // another token
    polls.changed('v2'); // another visitor
    expect(polls.lookup('t1', 'c1')).toBeDefined();
    polls.changed('v1');
    expect(polls.lookup('t1', 'c1')).toBeUndefined();
    // Checked again after the change: remembered again.
    polls.keep('t1', answer(polls.begin()));
    expect(polls.lookup('t1', 'c1')).toBeDefined();
  });

  it('does not keep a check that a change overtook while it ran (its snapshot may predate the commit)', () => {
    const polls = quiet();
    const seq = polls.begin();
    polls.changed('v1'); // heard while the check was in flight
    polls.keep('t1', answer(seq));
    expect(polls.lookup('t1', 'c1')).toBeUndefined();
    // Another visitor's change in flight does not matter.
    const next = polls.begin();
    polls.changed('v9');
    polls.keep('t1', answer(next));
    expect(polls.lookup('t1', 'c1')).toBeDefined();
  });

  it('remembers nothing on a node that does not hear every push (PostgreSQL without Redis)', () => {
    const polls = new QuietPolls();
    polls.keep('t1', answer(polls.begin()));
    expect(polls.lookup('t1', 'c1')).toBeUndefined();
  });

  it('forgets an answer after its time, whatever happened', () => {
    const polls = quiet(1000);
    polls.keep('t1', answer(polls.begin()), 10_000);
    expect(polls.lookup('t1', 'c1', 10_999)).toBeDefined();
    expect(polls.lookup('t1', 'c1', 11_000)).toBeUndefined();
  });

  it('answers nothing from memory while paused (Redis subscription down), and drops what it knew when resumed', () => {
    const polls = quiet();
    polls.keep('t1', answer(polls.begin()));
    const inFlight = polls.begin();
    polls.pause();
    expect(polls.lookup('t1', 'c1')).toBeUndefined();
    polls.keep('t2', answer(polls.begin()));
    expect(polls.lookup('t2', 'c1')).toBeUndefined();
    polls.resume();
    expect(polls.lookup('t1', 'c1')).toBeUndefined();
    // A check begun before the outage may have missed a push: not kept.
    polls.keep('t3', answer(inFlight));
    expect(polls.lookup('t3', 'c1')).toBeUndefined();
    polls.keep('t3', answer(polls.begin()));
    expect(polls.lookup('t3', 'c1')).toBeDefined();
  });

  it('stays bounded: the oldest token goes, and clearing the change list drops every answer begun before', () => {
    const polls = quiet(60_000, 3);
    for (const t of ['t1', 't2', 't3', 't4']) polls.keep(t, answer(polls.begin()));
    expect(polls.lookup('t1', 'c1')).toBeUndefined();
    expect(polls.lookup('t4', 'c1')).toBeDefined();
    const before = polls.begin();
    // The change list holds three: the fourth change clears it, and with it what it knew (answers begun before stop counting).
    for (const v of ['a', 'b', 'c', 'd']) polls.changed(v);
    expect(polls.lookup('t4', 'c1')).toBeUndefined();
    polls.keep('t5', answer(before));
    expect(polls.lookup('t5', 'c1')).toBeUndefined();
  });
});
