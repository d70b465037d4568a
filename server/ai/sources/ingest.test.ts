import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiPassages, aiSources } from '../../db/schema.js';
import { buildAccount } from '../../test/factories.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import type { Chunk } from './chunk.js';
import { replacePassages } from './ingest.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const chunk = (text: string, heading = 'Help'): Chunk => ({ title: 'Help | Shop', url: 'https://shop.example/help', heading, question: null, text, position: 0 });

describe('a refresh of a source', () => {
  it('keeps the rows of passages whose words did not change, moved to their new places with a new rev; others are replaced', async () => {
    const owner = await buildAccount(t.app);
    const accountId = owner.user.account_id;
    const db = t.app.db;
    const [source] = await db.insert(aiSources).values({ accountId, kind: 'website', name: 'shop.example', url: 'https://shop.example/', status: 'ready' }).returning();
    const first = Array.from({ length: 1200 }, (_, i) => chunk(`Answer number ${i} of the help page.`));
    await db.transaction((tx) => replacePassages(tx, accountId, source!.id, first));
    const before = await db.select().from(aiPassages).where(eq(aiPassages.sourceId, source!.id)).orderBy(asc(aiPassages.position));
    expect(before).toHaveLength(1200);

    // A new passage at the top moves every other one down a place; one passage changed its words; one is gone.
    const second = [chunk('Brand new opening words.', 'News'), ...first.slice(0, 1199)];
    second[5] = chunk('Answer number 4 now reads differently.');
    await db.transaction((tx) => replacePassages(tx, accountId, source!.id, second));
    const after = await db.select().from(aiPassages).where(eq(aiPassages.sourceId, source!.id)).orderBy(asc(aiPassages.position));

    expect(after.map((p) => p.text)).toEqual(second.map((c) => c.text));
    expect(after.map((p) => p.position)).toEqual(second.map((_, i) => i));
    const byText = new Map(before.map((p) => [p.text, p]));
    const kept = after.filter((p) => byText.has(p.text));
    expect(kept).toHaveLength(1198); // all but the changed one and the one dropped off the end
    for (const p of kept) {
      const old = byText.get(p.text)!;
      expect(p.id).toBe(old.id);
      expect(p.position).toBe(old.position + 1);
      expect(p.rev).toBeGreaterThan(old.rev);
    }
    expect(byText.has(after[0]!.text)).toBe(false);
  });
});
