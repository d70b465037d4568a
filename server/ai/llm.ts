/**
 * Optional writer of answers: an OpenAI-compatible chat-completions endpoint (a local Ollama or
 * llama.cpp server, or a hosted one). It only rephrases retrieved knowledge; any failure,
 * timeout or refusal makes the caller keep the retrieval answer (settings: config.llm).
 */
import type { LlmConfig } from '../config.js';

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
    return answer;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
