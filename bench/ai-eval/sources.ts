/**
 * Issue 17's evaluation of passage retrieval (server/ai/passages): each business of the source
 * kind is read from its files through the ingestion's own extraction and chunking
 * (server/ai/sources), into a PassageIndex (pure: no database), then asked its questions and
 * paraphrases and the off-topic set. See README.md for the rules (dental and saas held out).
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Passage, PASSAGE_CALIBRATION, type PassageFeatures, PassageIndex } from '../../server/ai/passages/index.js';
import { chunkDocument, chunkFaq } from '../../server/ai/sources/chunk.js';
import { htmlToDocument, markdownToDocument, parseFaqCsv, textToDocument } from '../../server/ai/sources/extract.js';
import { loadSources, type SourceQuestion, type SourceSet } from './data.js';

export interface SourceBusiness {
  set: SourceSet;
  passages: Passage[];
  /** passage id -> the file it came from (site/<page>.html, docs/<file>, faq.csv). */
  fileOf: Map<number, string>;
}

/** Reads a business folder the way ingestion would: the sitemap's pages, the documents, the FAQ. */
export function loadSourceBusiness(dir: string, name: string, firstId = 1): SourceBusiness {
  const root = path.join(dir, name);
  const set = loadSources(dir, name);
  const passages: Passage[] = [];
  const fileOf = new Map<number, string>();
  let id = firstId;
  const add = (file: string, sourceId: string, chunks: ReturnType<typeof chunkFaq>) => {
    for (const c of chunks) {
      passages.push({ id, sourceId, title: c.title, url: c.url, heading: c.heading, question: c.question, text: c.text, weight: 1 });
      fileOf.set(id++, file);
    }
  };
  const sitemap = fs.readFileSync(path.join(root, 'site', 'sitemap.xml'), 'utf8');
  for (const [, loc] of sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)) {
    const file = `site/${loc!.slice(set.origin.length + 1) || 'index.html'}`;
    add(file, `${name}:site`, chunkDocument(htmlToDocument(fs.readFileSync(path.join(root, file), 'utf8'), loc)));
  }
  for (const doc of fs.readdirSync(path.join(root, 'docs')).sort()) {
    const text = fs.readFileSync(path.join(root, 'docs', doc), 'utf8');
    add(`docs/${doc}`, `${name}:docs/${doc}`, chunkDocument(doc.endsWith('.md') ? markdownToDocument(text, doc) : textToDocument(text, doc)));
  }
  add('faq.csv', `${name}:faq`, chunkFaq(parseFaqCsv(fs.readFileSync(path.join(root, 'faq.csv'), 'utf8')), 'faq.csv'));
  return { set, passages, fileOf };
}

export function indexOf(passages: Passage[]): PassageIndex {
  const index = new PassageIndex();
  for (const p of passages) index.add(p);
  return index;
}

const words = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

/** The cited chunk holds the expected passage, or (a passage cut by chunking) overlaps it by half its words or more. */
export function overlaps(chunk: string, passage: string): boolean {
  const c = words(chunk);
  const p = words(passage);
  if (c.includes(p)) return true;
  const pw = p.split(' ');
  if (pw.length < 4) return false;
  const grams = new Set<string>();
  const cw = c.split(' ');
  for (let i = 0; i + 3 <= cw.length; i++) grams.add(cw.slice(i, i + 3).join(' '));
  let hit = 0;
  for (let i = 0; i + 3 <= pw.length; i++) if (grams.has(pw.slice(i, i + 3).join(' '))) hit++;
  return hit / (pw.length - 2) >= 0.5;
}

export interface Scored {
  right: boolean;
  confidence: number;
  features: PassageFeatures | undefined;
  /** For the tuning business only: what was asked and what answered. */
  asked: string;
  cited?: string;
  q?: SourceQuestion;
}

export function ask(b: SourceBusiness, index: PassageIndex, which: 'question' | 'paraphrase'): Scored[] {
  return b.set.questions.map((q) => {
    const best = index.search(q[which]).best;
    const right = !!best && b.fileOf.get(best.passage.id) === q.source && overlaps(best.passage.text, q.passage);
    return { right, confidence: best?.confidence ?? 0, features: best?.features, asked: q[which], cited: best ? `${b.fileOf.get(best.passage.id)} "${best.passage.heading}" ${best.passage.text.slice(0, 90)}` : undefined, q };
  });
}

export function askOffTopic(index: PassageIndex, offTopic: string[]): Scored[] {
  return offTopic.map((q) => {
    const best = index.search(q).best;
    return { right: false, confidence: best?.confidence ?? 0, features: best?.features, asked: q };
  });
}

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)} %` : 'n/a');

/** Answered share, precision at a threshold. */
export function at(res: Scored[], threshold: number): { answered: number; precision: number; right: number } {
  const hi = res.filter((r) => r.confidence >= threshold);
  const right = hi.filter((r) => r.right).length;
  return { answered: hi.length / res.length, precision: hi.length ? right / hi.length : NaN, right: right / res.length };
}

/** The largest share of questions answered (highest confidence first) while precision stays >= 90 %, and the threshold it needs. */
export function coverageAt90(res: Scored[]): { share: number; threshold: number } {
  const sorted = [...res].sort((a, b) => b.confidence - a.confidence);
  let right = 0;
  let best = { share: 0, threshold: 1 };
  sorted.forEach((r, i) => {
    if (r.right) right++;
    const next = sorted[i + 1];
    // Only cut between distinct confidences: a threshold cannot split a tie.
    if (next && next.confidence === r.confidence) return;
    if (r.confidence > 0 && right / (i + 1) >= 0.9 && (i + 1) / res.length > best.share) best = { share: (i + 1) / res.length, threshold: r.confidence };
  });
  return best;
}

export function line(label: string, res: Scored[]): string {
  const a8 = at(res, 0.8);
  const a6 = at(res, 0.6);
  const cov = coverageAt90(res);
  return `  ${label.padEnd(26)} top-1 ${pct(res.filter((r) => r.right).length, res.length)} | at >= 0.8: ${pct(a8.answered * res.length, res.length)} answered, precision ${pct(a8.precision * 100, 100)} | at >= 0.6: ${pct(a6.answered * res.length, res.length)}, precision ${pct(a6.precision * 100, 100)} | at >= 90 % precision: ${pct(cov.share * 100, 100)} (conf >= ${cov.threshold.toFixed(2)})`;
}

type PassageCalibration = typeof PASSAGE_CALIBRATION;

/** Weighted logistic regression of the passage confidence (wrong answers weigh double), on the rows given. */
export function fitPassages(rows: Scored[]): PassageCalibration {
  const keys = ['queryCoverage', 'direct', 'keyCoverage', 'margin'] as const;
  // AI_EVAL_FIX_MARGIN=<w>: keep the margin weight fixed while fitting the others.
  const fixMargin = process.env.AI_EVAL_FIX_MARGIN ? Number(process.env.AI_EVAL_FIX_MARGIN) : undefined;
  let w = [0, 0, 0, 0, fixMargin ?? 0];
  const x = (f: PassageFeatures) => [1, f.queryCoverage, f.direct, f.keyCoverage, f.margin];
  const data = rows.filter((r) => r.features);
  for (let epoch = 0; epoch < 20000; epoch++) {
    const grad = [0, 0, 0, 0, 0];
    for (const r of data) {
      const xi = x(r.features!);
      const p = 1 / (1 + Math.exp(-xi.reduce((s, v, k) => s + v * w[k]!, 0)));
      const err = (p - (r.right ? 1 : 0)) * (r.right ? 1 : 2);
      xi.forEach((v, k) => {
        grad[k]! += err * v;
      });
    }
    w = w.map((v, k) => (k === 4 && fixMargin !== undefined ? v : v - (0.5 * grad[k]!) / data.length));
  }
  const out = { ...PASSAGE_CALIBRATION, bias: +w[0]!.toFixed(2) };
  keys.forEach((k, i) => {
    out[k] = +w[i + 1]!.toFixed(2);
  });
  return out;
}
