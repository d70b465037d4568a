import { Bm25 } from './bm25.js';
import { fold, terms } from './normalize.js';

/** One piece of knowledge: a question (or a taught fact) and the answer to give. */
export interface Pattern {
  id: number;
  question: string;
  answer: string;
  /** 1 when new; feedback moves it (helpful up, not_helpful down). */
  weight: number;
  /** Not yet approved: answers only those who may see its source conversation. Default approved. */
  status?: 'approved' | 'pending';
  /** The conversation it was learned from, if any. */
  conversationId?: number | null;
}

/** Which patterns an asker may be answered from; undefined: all of them. */
export type PatternFilter = (p: Pattern) => boolean;

export interface Candidate {
  pattern: Pattern;
  score: number;
  confidence: number;
  /** What the confidence is computed from (the evaluation fits the calibration on these). */
  features: Features;
}

export interface Features {
  /** Share of the query's idf-weighted terms the pattern has (answer-only terms count half). */
  queryCoverage: number;
  /** Share of the pattern question's idf-weighted terms the query has. */
  docCoverage: number;
  /** queryCoverage minus that of the best pattern with another answer (0 when tied or behind). */
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
export const CALIBRATION = { bias: -3.9, queryCoverage: 3.87, docCoverage: 1.49, margin: 4.82 };

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** Below this many patterns, the margin over rival answers counts in proportion (see search). */
export const SMALL_KNOWLEDGE_BASE = 4;

interface Doc {
  pattern: Pattern;
  /** The question's terms. */
  terms: Set<string>;
  /** Question and answer terms: a paraphrase often uses the answer's words. */
  allTerms: Set<string>;
  answerKey: string;
}

let versions = 0;
const nextVersion = () => ++versions;

/** A searchable set of patterns with calibrated confidence (pure: no database). */
export class KnowledgeIndex {
  private bm25 = new Bm25();
  private docs = new Map<number, Doc>();
  /** Changes on every add/remove (unique across indexes): lets others (passage related terms) know the patterns changed. */
  version = nextVersion();

  get size(): number {
    return this.docs.size;
  }

  /** The patterns held (approved and pending alike; callers filter). */
  patterns(): Pattern[] {
    return [...this.docs.values()].map((d) => d.pattern);
  }

  add(pattern: Pattern): void {
    const t = terms(pattern.question);
    // A taught fact is its own answer: index it once.
    const a = fold(pattern.answer) === fold(pattern.question) ? [] : terms(pattern.answer);
    this.docs.set(pattern.id, { pattern, terms: new Set(t), allTerms: new Set([...t, ...a]), answerKey: fold(pattern.answer) });
    // The question counts twice as much as the answer.
    this.bm25.add(pattern.id, [...t, ...t, ...a]);
    this.version = nextVersion();
  }

  remove(id: number): void {
    this.docs.delete(id);
    this.bm25.remove(id);
    this.version = nextVersion();
  }

  search(text: string, limit = 4, allow?: PatternFilter): SearchResult {
    const query = terms(text, (t) => this.bm25.df(t) > 0);
    if (query.length === 0 || this.docs.size === 0) return { best: undefined, candidates: [], terms: query };
    const accept = allow ? (id: number) => { const d = this.docs.get(id); return !!d && allow(d.pattern); } : undefined;
    const hits = this.bm25.search(query, limit * 4, (id) => weightBoost(this.docs.get(id)?.pattern.weight ?? 1), accept);
    // "No rival answer" is evidence only when there are other answers that could have rivalled:
    // on a knowledge base of a handful of patterns the margin is shrunk, so one shared word
    // ("hello") with the only pattern does not read as a certain match.
    const rivalEvidence = Math.min(1, Math.max(0, this.docs.size - 1) / SMALL_KNOWLEDGE_BASE);
    const qset = new Set(query);
    const scored = hits.flatMap((hit) => {
      const doc = this.docs.get(hit.id);
      return doc ? [{ doc, score: hit.score, ...this.coverage(qset, doc) }] : [];
    });
    const candidates: Candidate[] = [];
    const seen = new Set<string>();
    for (const s of scored) {
      if (candidates.length >= limit) break;
      if (seen.has(s.doc.answerKey)) continue;
      seen.add(s.doc.answerKey);
      // Ambiguity: another answer covering the question as well makes this one a coin toss.
      let rival = 0;
      for (const o of scored) if (o.doc.answerKey !== s.doc.answerKey) rival = Math.max(rival, o.queryCoverage);
      const features: Features = { queryCoverage: s.queryCoverage, docCoverage: s.docCoverage, margin: Math.max(0, s.queryCoverage - rival) * rivalEvidence };
      candidates.push({ pattern: s.doc.pattern, score: s.score, features, confidence: confidenceOf(features, s.doc.pattern.weight) });
    }
    candidates.sort((a, b) => b.confidence - a.confidence || b.score - a.score);
    return { best: candidates[0], candidates, terms: query };
  }

  /**
   * How much of the question's information (idf-weighted terms) the pattern covers (terms
   * found only in its answer count half: weaker evidence than the learned question), and how
   * much of the pattern's question the query covers.
   */
  private coverage(query: Set<string>, doc: Doc): { queryCoverage: number; docCoverage: number } {
    let qTotal = 0;
    let shared = 0;
    for (const t of query) {
      const idf = this.bm25.idf(t);
      qTotal += idf;
      if (doc.terms.has(t)) shared += idf;
      else if (doc.allTerms.has(t)) shared += idf / 2;
    }
    let dTotal = 0;
    let dShared = 0;
    for (const t of doc.terms) {
      const idf = this.bm25.idf(t);
      dTotal += idf;
      if (query.has(t)) dShared += idf;
    }
    return { queryCoverage: qTotal > 0 ? shared / qTotal : 0, docCoverage: dTotal > 0 ? dShared / dTotal : 0 };
  }
}

export function confidenceOf(f: Features, weight: number): number {
  const c = CALIBRATION;
  const raw = sigmoid(c.bias + c.queryCoverage * f.queryCoverage + c.docCoverage * f.docCoverage + c.margin * f.margin);
  return Math.min(0.99, raw * weightFactor(weight));
}

/** Knowledge (a pattern or a passage) whose weight falls to this is retired: it no longer answers. */
export const RETIRE_AT = 0.2;

/** Ranking boost of a pattern's feedback weight. */
const weightBoost = (w: number) => Math.max(0.05, w);
/** Confidence factor: a pattern marked unhelpful is trusted less; a helpful one a little more. */
export const weightFactor = (w: number) => Math.min(1.1, 0.6 + 0.4 * Math.max(0, w));
