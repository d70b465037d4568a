import { Bm25 } from './bm25.js';
import { fold, terms } from './normalize.js';

/** One piece of knowledge: a question (or a taught fact) and the answer to give. */
export interface Pattern {
  id: number;
  question: string;
  answer: string;
  /** 1 when new; feedback moves it (helpful up, not_helpful down). */
  weight: number;
}

export interface Candidate {
  pattern: Pattern;
  score: number;
  confidence: number;
  /** What the confidence is computed from (the evaluation fits the calibration on these). */
  features: Features;
}

export interface Features {
  queryCoverage: number;
  docCoverage: number;
  margin: number;
}

export interface SearchResult {
  best: Candidate | undefined;
  /** Best candidates with distinct answers, best first (best included). */
  candidates: Candidate[];
  /** The query's retrieval terms (empty: nothing to search for). */
  terms: string[];
}

/**
 * Logistic calibration of the confidence, fitted on business A of bench/ai-eval (correct
 * answers vs wrong and off-topic ones); see bench/ai-eval/README.md for how and the figures.
 */
export const CALIBRATION = { bias: -4.71, queryCoverage: 5.06, docCoverage: 2.31, margin: 0.28 };

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

interface Doc {
  pattern: Pattern;
  /** The question's terms. */
  terms: Set<string>;
  /** Question and answer terms: a paraphrase often uses the answer's words. */
  allTerms: Set<string>;
  answerKey: string;
}

/** A searchable set of patterns with calibrated confidence (pure: no database). */
export class KnowledgeIndex {
  private bm25 = new Bm25();
  private docs = new Map<number, Doc>();

  get size(): number {
    return this.docs.size;
  }

  add(pattern: Pattern): void {
    const t = terms(pattern.question);
    // A taught fact is its own answer: index it once.
    const a = fold(pattern.answer) === fold(pattern.question) ? [] : terms(pattern.answer);
    this.docs.set(pattern.id, { pattern, terms: new Set(t), allTerms: new Set([...t, ...a]), answerKey: fold(pattern.answer) });
    // The question counts twice as much as the answer.
    this.bm25.add(pattern.id, [...t, ...t, ...a]);
  }

  remove(id: number): void {
    this.docs.delete(id);
    this.bm25.remove(id);
  }

  search(text: string, limit = 4): SearchResult {
    const query = terms(text);
    if (query.length === 0 || this.docs.size === 0) return { best: undefined, candidates: [], terms: query };
    const hits = this.bm25.search(query, limit * 4, (id) => weightBoost(this.docs.get(id)?.pattern.weight ?? 1));
    const candidates: Candidate[] = [];
    const seen = new Set<string>();
    const qset = new Set(query);
    for (let i = 0; i < hits.length && candidates.length < limit; i++) {
      const hit = hits[i]!;
      const doc = this.docs.get(hit.id);
      if (!doc || seen.has(doc.answerKey)) continue;
      seen.add(doc.answerKey);
      // The runner-up is the best hit with another answer: a close one means ambiguity.
      const next = hits.slice(i + 1).find((h) => this.docs.get(h.id)?.answerKey !== doc.answerKey);
      const features = this.features(qset, doc, hit.score, next?.score ?? 0);
      candidates.push({ pattern: doc.pattern, score: hit.score, features, confidence: confidenceOf(features, doc.pattern.weight) });
    }
    candidates.sort((a, b) => b.confidence - a.confidence || b.score - a.score);
    return { best: candidates[0], candidates, terms: query };
  }

  /**
   * How sure the match is, from three things the index can measure: how much of the question's
   * information (idf-weighted terms) the pattern covers, how much of the pattern the question
   * covers, and how far ahead of the next different answer it is. Feedback weight scales it.
   */
  private features(query: Set<string>, doc: Doc, score: number, runnerUp: number): Features {
    let qTotal = 0;
    let shared = 0;
    for (const t of query) {
      const idf = this.bm25.idf(t);
      qTotal += idf;
      if (doc.allTerms.has(t)) shared += idf;
    }
    let dTotal = 0;
    let dShared = 0;
    for (const t of doc.terms) {
      const idf = this.bm25.idf(t);
      dTotal += idf;
      if (query.has(t)) dShared += idf;
    }
    const qCov = qTotal > 0 ? shared / qTotal : 0;
    const dCov = dTotal > 0 ? dShared / dTotal : 0;
    const margin = score > 0 ? Math.max(0, 1 - runnerUp / score) : 0;
    return { queryCoverage: qCov, docCoverage: dCov, margin };
  }
}

export function confidenceOf(f: Features, weight: number): number {
  const c = CALIBRATION;
  const raw = sigmoid(c.bias + c.queryCoverage * f.queryCoverage + c.docCoverage * f.docCoverage + c.margin * f.margin);
  return Math.min(0.99, raw * weightFactor(weight));
}

/** Ranking boost of a pattern's feedback weight. */
const weightBoost = (w: number) => Math.max(0.05, w);
/** Confidence factor: a pattern marked unhelpful is trusted less; a helpful one a little more. */
export const weightFactor = (w: number) => Math.min(1.1, 0.6 + 0.4 * Math.max(0, w));
