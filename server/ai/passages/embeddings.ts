/**
 * Optional OpenAI-compatible embeddings endpoint (EMBEDDINGS_URL / EMBEDDINGS_MODEL /
 * EMBEDDINGS_API_KEY): POST {base}/embeddings {model, input: [...]} -> {data: [{embedding, index}]}.
 * Passage retrieval works without it; with it, vectors add recall (passages/index.ts). Any
 * failure or timeout returns undefined and the caller stays lexical.
 */
import type { LlmConfig } from '../../config.js';

export function embeddingsUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  if (base.endsWith('/embeddings')) return base;
  return /\/v\d+$/.test(base) ? `${base}/embeddings` : `${base}/v1/embeddings`;
}

/** Longest text sent per input (the passages are chunks; a question is short). */
const MAX_INPUT = 4000;
/** Inputs per request. */
export const EMBED_BATCH = 64;

/** One vector per text, in order; undefined when the endpoint fails or answers malformed data. */
export async function embed(cfg: LlmConfig, texts: string[]): Promise<number[][] | undefined> {
  if (texts.length === 0) return [];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), cfg.timeoutMs ?? 8000);
  try {
    const res = await fetch(embeddingsUrl(cfg.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}) },
      body: JSON.stringify({ model: cfg.model, input: texts.map((t) => t.slice(0, MAX_INPUT)) }),
      signal: controller.signal,
    });
    if (!res.ok) return undefined;
    const json = (await res.json()) as { data?: { embedding?: unknown; index?: unknown }[] };
    const data = json.data;
    if (!Array.isArray(data) || data.length !== texts.length) return undefined;
    const out: number[][] = new Array(texts.length);
    for (const [i, d] of data.entries()) {
      const v = d.embedding;
      if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) return undefined;
      out[typeof d.index === 'number' && d.index >= 0 && d.index < texts.length ? d.index : i] = v as number[];
    }
    return out.every(Boolean) && out.every((v) => v.length === out[0]!.length) ? out : undefined;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** The text of a passage that is embedded: what it is about, then what it says. */
export const passageEmbeddingText = (p: { title: string; heading: string; question: string | null; text: string }) =>
  [p.title, p.heading, p.question ?? '', p.text].filter(Boolean).join('\n');
