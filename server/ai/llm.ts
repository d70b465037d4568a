/**
 * Optional writer of answers: an OpenAI-compatible chat-completions endpoint (a local Ollama or
 * llama.cpp server, or a hosted one). It only rephrases retrieved knowledge; any failure,
 * timeout or refusal makes the caller keep the retrieval answer (settings: config.llm).
 */
import type { LlmConfig } from '../config.js';
import { terms } from './normalize.js';

export function completionsUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  if (base.endsWith('/chat/completions')) return base;
  return /\/v\d+$/.test(base) ? `${base}/chat/completions` : `${base}/v1/chat/completions`;
}

export const UNKNOWN_MARK = 'UNKNOWN';

/** Asks the model to answer `question` from `knowledge` only; undefined when it cannot. */
export async function groundedAnswer(
  llm: LlmConfig,
  question: string,
  knowledge: { question: string; answer: string }[],
): Promise<string | undefined> {
  const facts = knowledge.map((k, i) => `${i + 1}. Q: ${k.question}\n   A: ${k.answer}`).join('\n');
  const body = {
    model: llm.model,
    temperature: 0.2,
    max_tokens: 300,
    messages: [
      {
        role: 'system',
        content:
          'You are the customer assistant of a business. Answer the question using ONLY the knowledge below, ' +
          `in the language of the question, briefly. If the knowledge does not contain the answer, reply exactly ${UNKNOWN_MARK}.\n\nKnowledge:\n${facts}`,
      },
      { role: 'user', content: question },
    ],
  };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), llm.timeoutMs ?? 8000);
  try {
    const res = await fetch(completionsUrl(llm.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(llm.apiKey ? { authorization: `Bearer ${llm.apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    if (!res.ok) return undefined;
    const json = (await res.json()) as { choices?: { message?: { content?: unknown } }[] };
    const text = json.choices?.[0]?.message?.content;
    if (typeof text !== 'string') return undefined;
    const answer = text.trim().slice(0, 2000);
    if (!answer || answer.includes(UNKNOWN_MARK)) return undefined;
    // Written only from the knowledge, or not at all: an answer the knowledge does not support
    // (an invented price, date or fact) is dropped and the caller keeps its retrieved answer.
    return supported(answer, question, knowledge) ? answer : undefined;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** Share of an answer's content terms that must be found in the knowledge (or the question). */
export const SUPPORT_MIN = 0.75;

const numbers = (text: string) => new Set((text.match(/\d+(?:[.,]\d+)*/g) ?? []).map((n) => n.replace(/[.,]+$/, '')));

/**
 * Whether a written answer says only what the knowledge says: every number (price, time, date,
 * quantity) appears in the knowledge or the question, and most of its content words do (after
 * the same normalisation as retrieval: folding, stemming, the multilingual concepts, so a
 * rephrasing or a translation passes).
 */
export function supported(answer: string, question: string, knowledge: { question: string; answer: string }[]): boolean {
  const source = [question, ...knowledge.flatMap((k) => [k.question, k.answer])].join('\n');
  const known = numbers(source);
  for (const n of numbers(answer)) if (!known.has(n)) return false;
  const vocabulary = new Set(terms(source));
  const words = terms(answer).filter((t) => !/^\d/.test(t));
  if (words.length === 0) return true;
  const found = words.filter((t) => vocabulary.has(t)).length;
  return found / words.length >= SUPPORT_MIN;
}
