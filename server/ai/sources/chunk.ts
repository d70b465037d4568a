/**
 * Passages of a source (issue 17): each section of a document is cut into chunks of about
 * 60-150 words at paragraph, else sentence, boundaries, never across a heading; every chunk keeps
 * its heading, the document's title and URL. An FAQ row is one passage (question + answer).
 */
import type { FaqRow, SourceDocument } from './extract.js';

export interface Chunk {
  /** What an answer cites: the page's <title> or the document's name. */
  title: string;
  url: string | null;
  heading: string;
  /** FAQ rows: the question (text is the answer); null otherwise. */
  question: string | null;
  text: string;
  /** Order within the document (ingestion renumbers across the pages of a site). */
  position: number;
}

export interface ChunkOptions {
  /** Words a chunk aims at (default 100): a chunk closes once it reaches this, and never grows past 1.5 times it. */
  targetWords?: number;
}

export const DEFAULT_TARGET_WORDS = 100;

const words = (s: string) => (s.match(/\S+/g) ?? []).length;

const sentenceSegmenter = new Intl.Segmenter(undefined, { granularity: 'sentence' });

/** The sentences of a paragraph (Intl's rules, any language); a sentence longer than max is cut every max words. */
function sentences(paragraph: string, max: number): string[] {
  const out: string[] = [];
  for (const { segment } of sentenceSegmenter.segment(paragraph)) {
    const s = segment.trim();
    if (!s) continue;
    const w = s.split(/\s+/);
    for (let i = 0; i < w.length; i += max) out.push(w.slice(i, i + max).join(' '));
  }
  return out;
}

/** Cuts one section's paragraphs into texts of about target words (at most 1.5 times). */
function cutSection(paragraphs: string[], target: number): string[] {
  const max = Math.max(1, Math.floor(target * 1.5));
  const min = Math.floor(target * 0.6);
  // The units: whole paragraphs, or the sentences of a paragraph longer than max.
  const units = paragraphs.flatMap((p) => (words(p) > max ? sentences(p, max) : [p]));
  const chunks: { parts: string[]; words: number }[] = [];
  let cur: { parts: string[]; words: number } = { parts: [], words: 0 };
  for (const unit of units) {
    const n = words(unit);
    if (cur.words && cur.words + n > max) {
      chunks.push(cur);
      cur = { parts: [], words: 0 };
    }
    cur.parts.push(unit);
    cur.words += n;
    if (cur.words >= target) {
      chunks.push(cur);
      cur = { parts: [], words: 0 };
    }
  }
  if (cur.words) {
    // A short tail joins the chunk before it when both fit in max, else takes units from its end.
    const prev = chunks[chunks.length - 1];
    if (prev && cur.words < min && prev.words + cur.words <= max) {
      prev.parts.push(...cur.parts);
      prev.words += cur.words;
    } else {
      while (prev && cur.words < min && prev.parts.length > 1) {
        const n = words(prev.parts[prev.parts.length - 1]!);
        if (prev.words - n < min || cur.words + n > max) break;
        cur.parts.unshift(prev.parts.pop()!);
        prev.words -= n;
        cur.words += n;
      }
      chunks.push(cur);
    }
  }
  return chunks.map((c) => c.parts.join(' '));
}

/** The passages of a document, in reading order. */
export function chunkDocument(doc: SourceDocument, options: ChunkOptions = {}): Chunk[] {
  const target = Math.max(10, options.targetWords ?? DEFAULT_TARGET_WORDS);
  const out: Chunk[] = [];
  for (const section of doc.sections) {
    const paragraphs = section.paragraphs.length ? section.paragraphs : [section.text];
    for (const text of cutSection(paragraphs.filter((p) => p.trim()), target)) {
      out.push({ title: doc.title, url: doc.url, heading: section.heading, question: null, text, position: out.length });
    }
  }
  return out;
}

/** The passages of an FAQ file: one per row, the question set and the answer as text. */
export function chunkFaq(rows: FaqRow[], title: string): Chunk[] {
  return rows.map((r, position) => ({ title, url: null, heading: '', question: r.question, text: r.answer, position }));
}
