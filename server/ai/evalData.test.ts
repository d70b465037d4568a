import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The assistant's frozen evaluation set (bench/ai-eval/data, PRODUCT.md section 11) must stay
// readable by its runner: the runner's --check mode is what this asserts, on the real set and
// on a broken copy (so the check is known to catch what it claims to).
const bench = fileURLToPath(new URL('../../bench/ai-eval/', import.meta.url));

function check(dataDir?: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(bench, 'run.mjs'), '--check'],
      { env: { ...process.env, ...(dataDir ? { AI_EVAL_DATA: dataDir } : {}) } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

describe('assistant evaluation data set', () => {
  it('is well formed: counts, paraphrases, no duplicates', async () => {
    const { code, out } = await check();
    expect(out).toContain('data set well formed');
    expect(code).toBe(0);
    for (const name of ['bakery.json', 'electronics.json', 'diving.json']) expect(out).toContain(`${name}: 100 pairs, 300 paraphrases`);
    expect(out).toContain('offtopic.json: 100 questions');
    // Issue 17's businesses: a site of 5-10 pages, 1-2 documents, an FAQ and 60 questions each.
    expect(out).toMatch(/dental: Brightside Dental Clinic, 8 pages, 2 documents, \d+ FAQ rows, 60 questions/);
    expect(out).toMatch(/saas: Tallyfox, 8 pages, 2 documents, \d+ FAQ rows, 60 questions/);
    // The tuning business of the source kind (the only one whose failures may be read).
    expect(out).toMatch(/tuning-cycles: Spokesmith Cycles, 6 pages, 1 documents, 8 FAQ rows, 4\d questions/);
    expect(out).toMatch(/tuning-guesthouse: Larkspur Guesthouse, 6 pages, 1 documents, 8 FAQ rows, 4\d questions/);
  });

  it('the tuning business is checked like the held-out ones, with 40 or more questions', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-eval-data-'));
    try {
      fs.cpSync(path.join(bench, 'data'), tmp, { recursive: true });
      const file = path.join(tmp, 'tuning-cycles', 'questions.json');
      const set = JSON.parse(fs.readFileSync(file, 'utf8')) as { questions: { id: string; paraphrase: string; passage: string }[] };
      set.questions[0]!.paraphrase = 'When is it open from Tuesday?'; // "tuesd" is a word of its passage
      set.questions.splice(30); // too few questions to tune on
      fs.writeFileSync(file, JSON.stringify(set));
      const { code, out } = await check(tmp);
      expect(code).toBe(1);
      expect(out).toContain('tuning-cycles-01: paraphrase shares tuesd with the passage');
      expect(out).toContain('tuning-cycles/questions.json: 30 questions, expected 40 or more');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('a broken copy is reported with what is wrong', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-eval-data-'));
    try {
      fs.cpSync(path.join(bench, 'data'), tmp, { recursive: true });
      const bakery = JSON.parse(fs.readFileSync(path.join(tmp, 'bakery.json'), 'utf8')) as { items: string[][] };
      bakery.items[5] = bakery.items[5]!.slice(0, 4); // a paraphrase lost
      bakery.items[7]![2] = bakery.items[3]![0]!; // another item's question reused
      fs.writeFileSync(path.join(tmp, 'bakery.json'), JSON.stringify(bakery));
      const off = JSON.parse(fs.readFileSync(path.join(tmp, 'offtopic.json'), 'utf8')) as { questions: string[] };
      off.questions.pop();
      fs.writeFileSync(path.join(tmp, 'offtopic.json'), JSON.stringify(off));

      const { code, out } = await check(tmp);
      expect(code).toBe(1);
      expect(out).toContain('bakery.json item 5: not [question, answer, 3 paraphrases]');
      expect(out).toContain('bakery.json item 7:');
      expect(out).toContain('already asked in item 3');
      expect(out).toContain('offtopic.json: 99 questions, expected 100');
      expect(out).not.toContain('PROBLEM dental');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('a source business whose answers drifted from its site is reported', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-eval-data-'));
    try {
      fs.cpSync(path.join(bench, 'data'), tmp, { recursive: true });
      const file = path.join(tmp, 'dental', 'questions.json');
      const set = JSON.parse(fs.readFileSync(file, 'utf8')) as { questions: { id: string; paraphrase: string; passage: string }[] };
      set.questions[0]!.passage = 'We are open around the clock.'; // not on the page
      set.questions[1]!.paraphrase = `${set.questions[1]!.paraphrase} Avenue?`; // a word of its passage
      set.questions[3]!.id = set.questions[2]!.id;
      fs.writeFileSync(file, JSON.stringify(set));
      fs.rmSync(path.join(tmp, 'dental', 'site', 'team.html')); // still in the sitemap and the menus

      const { code, out } = await check(tmp);
      expect(code).toBe(1);
      expect(out).toContain('dental-01: passage not found in site/contact.html');
      expect(out).toContain('dental-02: paraphrase shares avenu with the passage');
      expect(out).toContain('dental-03: missing or duplicate id');
      expect(out).toContain('dental/site/sitemap.xml: https://brightside-dental.example/team.html has no page');
      expect(out).toContain('dental/site/index.html: link to missing /team.html');
      expect(out).not.toContain('PROBLEM saas');
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
