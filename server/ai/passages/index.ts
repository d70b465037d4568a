import { Bm25 } from '../bm25.js';
import { fold, terms } from '../normalize.js';
import { weightFactor } from '../knowledge.js';

/**
 * Retrieval over the passages of a business's own sources (issue 17): chunks of its website
 * pages and documents, and its FAQ rows. Pure (no database): engine.ts loads one per account
 * from ai_passages; bench/ai-eval builds them from files.
 *
 * Ranking: BM25 over the passage's terms (its heading, FAQ question and page title count extra),
 * the same multilingual normalisation as learned patterns (normalize.ts), plus two ways to reach
 * a passage that shares few words with the question, both without a download at run time:
 *  - related terms learned from the account's own passages: words of a heading or an FAQ question
 *    and the words of the text under it ("cost" under a heading "Prices") meet in the query;
 *  - an optional embeddings endpoint (embeddings.ts): the query's and passages' vectors, cosine.
 * Confidence: a logistic function of coverage features, as for patterns (knowledge.ts), fitted on
 * the tuning business of bench/ai-eval only (see its README).
 */

export interface Passage {
  id: number;
  sourceId: string;
  /** The page's <title> or the document's name: what an answer cites. */
  title: string;
  url: string | null;
  /** The heading the chunk sits under ('' when none). */
  heading: string;
  /** FAQ rows: the question (text is then the answer). */
  question: string | null;
  text: string;
  /** 1 when new; feedback moves it. */
  weight: number;
  /** Vector of the embeddings endpoint, when one is configured. */
  embedding?: number[] | null;
}

export interface PassageFeatures {
  /** Share of the query's idf-weighted terms the passage has (related terms count part). */
  queryCoverage: number;
  /** Share of the passage's key terms (heading or FAQ question) the query has. */
  keyCoverage: number;
  /** queryCoverage minus that of the best passage on another topic (0 when tied or behind). */
  margin: number;
  /** Cosine similarity of the query's and the passage's vectors (0 without embeddings). */
  semantic: number;
}

export interface PassageCandidate {
  passage: Passage;
  score: number;
  confidence: number;
  features: PassageFeatures;
}

export interface PassageSearch {
  best: PassageCandidate | undefined;
  candidates: PassageCandidate[];
  terms: string[];
}

/**
 * Calibration of the passage confidence, fitted (bench/ai-eval `--fit`) on the tuning business
 * of the source kind only. `semantic` is 0 offline; with embeddings it adds evidence.
 */
export const PASSAGE_CALIBRATION = { bias: -5.29, queryCoverage: 4.95, keyCoverage: 2.51, margin: 3.76, semantic: 3 };

/** Without a heading or question, a passage's key terms are its page title's. */
const KEY_REPEAT = 2;
/** A related (learned) term matching counts this share of a real match. */
const RELATED_SHARE = 0.5;
/** A query term in more than this share of passages only refines the ranking of the others' hits. */
const COMMON_SHARE = 0.05;
/** Below this cosine, embeddings add no evidence (vectors of unrelated texts are rarely below 0). */
const SEMANTIC_FLOOR = 0.3;

interface Doc {
  passage: Passage;
  key: Set<string>;
  all: Set<string>;
  /** What makes two passages "the same topic": the same page (or file) and heading. */
  topic: string;
  norm: number;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

export function passageConfidence(f: PassageFeatures, weight: number): number {
  const c = PASSAGE_CALIBRATION;
  const semantic = Math.max(0, f.semantic - SEMANTIC_FLOOR) / (1 - SEMANTIC_FLOOR);
  const raw = sigmoid(c.bias + c.queryCoverage * f.queryCoverage + c.keyCoverage * f.keyCoverage + c.margin * f.margin + c.semantic * semantic);
  return Math.min(0.99, raw * weightFactor(weight));
}

export class PassageIndex {
  private bm25 = new Bm25();
  private docs = new Map<number, Doc>();
  /** key term -> body term -> passages where they meet; rebuilt lazily after changes. */
  private related: Map<string, Map<string, number>> | undefined;
  private vectors = 0;
  /** Learned question/answer pairs (approved patterns) that teach related terms too. */
  private pairs: { key: Set<string>; body: Set<string> }[] = [];
  private pairsVersion = -1;

  get size(): number {
    return this.docs.size;
  }

  /** Passages that carry a vector (the index searches by embeddings only when some do). */
  get embedded(): number {
    return this.vectors;
  }

  has(id: number): boolean {
    return this.docs.has(id);
  }

  add(p: Passage): void {
    this.remove(p.id);
    const keyText = [p.heading, p.question ?? ''].join(' ').trim();
    const title = terms(p.title);
    const key = terms(keyText || p.title);
    const body = terms(p.text);
    const all = new Set([...title, ...key, ...body]);
    const norm = p.embedding?.length ? Math.hypot(...p.embedding) : 0;
    if (norm) this.vectors++;
    this.docs.set(p.id, { passage: p, key: new Set(key), all, topic: `${p.sourceId}|${p.url ?? ''}|${fold(p.heading)}`, norm });
    const repeated: string[] = [];
    for (let i = 0; i < KEY_REPEAT; i++) repeated.push(...key);
    this.bm25.add(p.id, [...title, ...repeated, ...body]);
    this.related = undefined;
  }

  remove(id: number): void {
    const doc = this.docs.get(id);
    if (!doc) return;
    if (doc.norm) this.vectors--;
    this.docs.delete(id);
    this.bm25.remove(id);
    this.related = undefined;
  }

  /**
   * The account's approved learned pairs, as more evidence for related terms (a question's words
   * and its answer's words); `version` skips the work when they have not changed.
   */
  learnPairs(version: number, pairs: () => { question: string; answer: string }[]): void {
    if (version === this.pairsVersion) return;
    this.pairsVersion = version;
    this.pairs = pairs().map((p) => ({ key: new Set(terms(p.question)), body: new Set(terms(p.answer)) }));
    this.related = undefined;
  }

  /** Every passage id of a source (to replace or drop what was learned from it). */
  idsOfSource(sourceId: string): number[] {
    return [...this.docs.values()].filter((d) => d.passage.sourceId === sourceId).map((d) => d.passage.id);
  }

  /**
   * Related terms learned from the passages themselves: a word of a heading or FAQ question and a
   * word of the text under it, when they meet under at least two headings/questions and the body
   * word is not everywhere. query term -> [related term, strength 0..1].
   */
  private relatedTerms(): Map<string, Map<string, number>> {
    if (this.related) return this.related;
    const pairs = new Map<string, Map<string, number>>();
    const keyCount = new Map<string, number>();
    const n = this.docs.size || 1;
    const meet = (key: Set<string>, body: Set<string>) => {
      for (const k of key) {
        keyCount.set(k, (keyCount.get(k) ?? 0) + 1);
        let m = pairs.get(k);
        if (!m) pairs.set(k, (m = new Map()));
        for (const b of body) if (b !== k && !key.has(b)) m.set(b, (m.get(b) ?? 0) + 1);
      }
    };
    for (const d of this.docs.values()) if (d.passage.heading || d.passage.question) meet(d.key, d.all);
    for (const p of this.pairs) meet(p.key, p.body);
    const related = new Map<string, Map<string, number>>();
    for (const [k, m] of pairs) {
      const kc = keyCount.get(k)!;
      if (kc < 2) continue;
      const out = new Map<string, number>();
      for (const [b, c] of m) {
        if (c < 2) continue;
        const share = c / kc;
        // A body word found everywhere says nothing about this key word.
        const spread = this.bm25.df(b) / n;
        if (share >= 0.5 && spread < 0.2) out.set(b, share);
      }
      if (out.size) related.set(k, new Map([...out].sort((a, b) => b[1] - a[1]).slice(0, 5)));
    }
    this.related = related;
    return related;
  }

  search(text: string, limit = 4, queryVector?: number[] | null): PassageSearch {
    const query = terms(text, (t) => this.bm25.df(t) > 0);
    if (this.docs.size === 0 || (query.length === 0 && !queryVector)) return { best: undefined, candidates: [], terms: query };
    // Query expansion: related terms of the query's terms the index learned, weighted below real ones.
    const rel = this.relatedTerms();
    const qset = new Set(query);
    const expansion = new Map<string, number>();
    for (const t of qset) {
      for (const [r, s] of rel.get(t) ?? []) if (!qset.has(r)) expansion.set(r, Math.max(expansion.get(r) ?? 0, s * RELATED_SHARE));
    }
    // Feedback weight acts through the confidence (weightFactor); common words only refine (see Bm25.search).
    const hits = this.bm25.search([...qset], limit * 5, undefined, undefined, COMMON_SHARE);
    const ids = new Map<number, number>(hits.map((h) => [h.id, h.score]));
    if (expansion.size) {
      for (const h of this.bm25.search([...expansion.keys()], limit * 2, undefined, undefined, COMMON_SHARE)) if (!ids.has(h.id)) ids.set(h.id, h.score * RELATED_SHARE);
    }
    // Vectors: the nearest passages join the candidates whatever their words.
    const semantic = new Map<number, number>();
    if (queryVector?.length && this.vectors) {
      const qn = Math.hypot(...queryVector) || 1;
      const near: [number, number][] = [];
      for (const d of this.docs.values()) {
        const v = d.passage.embedding;
        if (!d.norm || !v || v.length !== queryVector.length) continue;
        let dot = 0;
        for (let i = 0; i < v.length; i++) dot += v[i]! * queryVector[i]!;
        near.push([d.passage.id, dot / (qn * d.norm)]);
      }
      near.sort((a, b) => b[1] - a[1]);
      for (const [id, cos] of near.slice(0, limit * 3)) {
        semantic.set(id, cos);
        if (!ids.has(id)) ids.set(id, 0);
      }
    }
    let qTotal = 0;
    for (const t of qset) qTotal += this.bm25.idf(t);
    const scored = [...ids].flatMap(([id, score]) => {
      const doc = this.docs.get(id);
      if (!doc) return [];
      let shared = 0;
      for (const t of qset) {
        if (doc.all.has(t)) shared += this.bm25.idf(t);
        else {
          // A query word reaching the passage only through a learned related term counts part.
          let best = 0;
          for (const [r, s] of rel.get(t) ?? []) if (doc.all.has(r)) best = Math.max(best, s * RELATED_SHARE);
          shared += best * this.bm25.idf(t);
        }
      }
      let kTotal = 0;
      let kShared = 0;
      for (const t of doc.key) {
        const idf = this.bm25.idf(t);
        kTotal += idf;
        if (qset.has(t)) kShared += idf;
      }
      return [{ doc, score, queryCoverage: qTotal ? shared / qTotal : 0, keyCoverage: kTotal ? kShared / kTotal : 0, semantic: semantic.get(id) ?? 0 }];
    });
    scored.sort((a, b) => b.score - a.score || b.semantic - a.semantic);
    // "No rival" is evidence only when there are passages that could have rivalled.
    const rivalEvidence = Math.min(1, Math.max(0, this.docs.size - 1) / 4);
    const candidates: PassageCandidate[] = [];
    const topics = new Set<string>();
    for (const s of scored) {
      if (candidates.length >= limit) break;
      if (topics.has(s.doc.topic)) continue;
      topics.add(s.doc.topic);
      let rival = 0;
      let rivalSemantic = 0;
      for (const o of scored) {
        if (o.doc.topic === s.doc.topic) continue;
        rival = Math.max(rival, o.queryCoverage);
        rivalSemantic = Math.max(rivalSemantic, o.semantic);
      }
      const features: PassageFeatures = {
        queryCoverage: s.queryCoverage,
        keyCoverage: s.keyCoverage,
        margin: Math.max(0, s.queryCoverage - rival) * rivalEvidence,
        // Semantic evidence counts only for the topic nearest the question (a rival as near makes it a coin toss).
        semantic: s.semantic > 0 && s.semantic >= rivalSemantic ? s.semantic : 0,
      };
      candidates.push({ passage: s.doc.passage, score: s.score, features, confidence: passageConfidence(features, s.doc.passage.weight) });
    }
    candidates.sort((a, b) => b.confidence - a.confidence || b.score - a.score);
    return { best: candidates[0], candidates, terms: query };
  }
}

const SENTENCE = /[^.!?\n]+(?:[.!?]+|$)/g;

/**
 * The reply from a passage without an LLM: an FAQ answer whole; a chunk trimmed to the sentences
 * that hold the question's terms (the best one and the one after it when it continues), at most
 * about `max` characters.
 */
export function extractiveReply(p: Passage, question: string, max = 400): string {
  const text = p.text.replace(/\s+/g, ' ').trim();
  if (p.question || text.length <= max) return text;
  const q = new Set(terms(question));
  const sentences = (text.match(SENTENCE) ?? [text]).map((s) => s.trim()).filter(Boolean);
  let best = 0;
  let bestScore = -1;
  sentences.forEach((s, i) => {
    const t = new Set(terms(s));
    let score = 0;
    for (const w of q) if (t.has(w)) score++;
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  });
  let reply = sentences[best]!;
  for (let i = best + 1; i < sentences.length && reply.length + sentences[i]!.length < max; i++) reply += ` ${sentences[i]}`;
  return reply.length > max + 200 ? `${reply.slice(0, max)}…` : reply;
}
