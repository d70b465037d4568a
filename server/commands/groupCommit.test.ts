import { describe, expect, it } from 'vitest';
import { GroupCommit } from './groupCommit.js';

/** A statement that takes its time: resolves each batch when told, and records what it was given. */
function slowStatement(fail?: (item: string) => boolean) {
  const batches: string[][] = [];
  const pending: (() => void)[] = [];
  const run = (items: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push(items);
      pending.push(() => (fail && items.some(fail) ? reject(new Error('bad write')) : resolve(items.map((i) => `ok:${i}`))));
    });
  const finishAll = async () => {
    while (pending.length > 0) {
      for (const f of pending.splice(0)) f();
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
    }
  };
  return { run, batches, finishAll };
}
const turn = () => new Promise((r) => setImmediate(r));

describe('group commit', () => {
  it('sends a lone write at once, and the writes that arrive meanwhile together in one statement', async () => {
    const s = slowStatement();
    const gc = new GroupCommit(s.run, { maxInFlight: 1, maxBatch: 100, stallMs: 10_000, maxRunning: 4 });
    const first = gc.submit('a', 'a1');
    await turn();
    expect(s.batches).toEqual([['a1']]);
    const more = ['b1', 'c1', 'd1'].map((x) => gc.submit(x[0]!, x));
    await turn();
    expect(s.batches).toHaveLength(1); // queued behind the one in flight
    await s.finishAll();
    expect(await first).toBe('ok:a1');
    expect(await Promise.all(more)).toEqual(['ok:b1', 'ok:c1', 'ok:d1']);
    expect(s.batches).toEqual([['a1'], ['b1', 'c1', 'd1']]);
    expect(gc.batchSizes).toEqual([1, 3]);
  });

  it("never puts two writes of one key in one batch or in flight at once, and keeps each key's order", async () => {
    const s = slowStatement();
    const gc = new GroupCommit(s.run, { maxInFlight: 2, maxBatch: 100, stallMs: 10_000, maxRunning: 4 });
    const all = [gc.submit('v', 'v1'), gc.submit('v', 'v2'), gc.submit('w', 'w1'), gc.submit('v', 'v3')];
    await turn();
    await turn();
    expect(s.batches).toEqual([['v1', 'w1']]);
    await s.finishAll();
    expect(await Promise.all(all)).toEqual(['ok:v1', 'ok:v2', 'ok:w1', 'ok:v3']);
    expect(s.batches).toEqual([['v1', 'w1'], ['v2'], ['v3']]);
  });

  it('caps a batch at maxBatch and runs up to maxInFlight batches at once', async () => {
    const s = slowStatement();
    const gc = new GroupCommit(s.run, { maxInFlight: 2, maxBatch: 2, stallMs: 10_000, maxRunning: 4 });
    const all = ['a', 'b', 'c', 'd', 'e'].map((k) => gc.submit(k, k));
    await turn();
    await turn();
    expect(s.batches).toEqual([['a', 'b'], ['c', 'd']]);
    await s.finishAll();
    expect(await Promise.all(all)).toEqual(['ok:a', 'ok:b', 'ok:c', 'ok:d', 'ok:e']);
    expect(s.batches).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('fails only the bad write of a failed batch: the others are written again one by one', async () => {
    const s = slowStatement((i) => i === 'bad');
    const gc = new GroupCommit(s.run, { maxInFlight: 1, maxBatch: 100, stallMs: 10_000, maxRunning: 4 });
    const first = gc.submit('x', 'x');
    await turn();
    const rest = [gc.submit('good', 'good'), gc.submit('bad', 'bad'), gc.submit('fine', 'fine')].map((p) => p.then((v) => v, (e: Error) => e.message));
    await s.finishAll();
    expect(await first).toBe('ok:x');
    expect(await Promise.all(rest)).toEqual(['ok:good', 'bad write', 'ok:fine']);
    expect(s.batches).toEqual([['x'], ['good', 'bad', 'fine'], ['good'], ['bad'], ['fine']]);
  });

  it('lets the next batch start beside one stalled past stallMs, keeping a stalled key waiting, up to maxRunning', async () => {
    const s = slowStatement();
    const gc = new GroupCommit(s.run, { maxInFlight: 1, maxBatch: 100, stallMs: 30, maxRunning: 2 });
    const stuck = gc.submit('a', 'a1');
    await turn();
    const next = [gc.submit('b', 'b1'), gc.submit('a', 'a2')];
    await new Promise((r) => setTimeout(r, 10));
    expect(s.batches).toEqual([['a1']]); // within stallMs: waits
    await new Promise((r) => setTimeout(r, 40));
    expect(s.batches).toEqual([['a1'], ['b1']]); // 'a' still waits for its stalled write
    const third = gc.submit('c', 'c1');
    await new Promise((r) => setTimeout(r, 50));
    expect(s.batches).toEqual([['a1'], ['b1']]); // two running, both stalled: maxRunning reached
    await s.finishAll();
    expect(await Promise.all([stuck, ...next, third])).toEqual(['ok:a1', 'ok:b1', 'ok:a2', 'ok:c1']);
    expect(s.batches.slice(2).flat().sort()).toEqual(['a2', 'c1']);
  });
});
