import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDOVER_MESSAGE, aiResolvedCount } from '../../ai/visitors.js';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, call, everyoneOffline } from '../../test/factories.js';
import { buildChattingVisitor, type TestVisitor } from '../../test/chatFactories.js';
import { settleJobs } from '../../test/jobs.js';
import { askAssistant } from '../../test/assistant.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const ask = (token: string, message: string) => askAssistant(t.app, token, message);
const reply = async (token: string, visitorId: string, message: string) => {
  const res = await call(t.app, 'POST', '/api/vms/messages', { token, body: { visitor_id: visitorId, message } });
  // Learning runs as a background job: wait until the queue has taken it (bounded).
  await settleJobs(t.app, 'ai.learnFromReply');
  return res;
};
const visitorSays = (v: TestVisitor, message: string) => call(t.app, 'POST', '/api/widget/messages', { token: v.token, body: { message } });
/** The visitor's conversation once the background reactions (learning, auto-answer) are done. */
const widgetMessages = async (v: TestVisitor) => {
  await t.app.events.drain();
  return (await call(t.app, 'GET', '/api/widget/messages', { token: v.token })).body.data as { sender_type: string; message: string }[];
};

describe('learning from a real conversation', () => {
  it('learns the agent reply to a widget question and answers a paraphrase in the console', async () => {
    const owner = await buildAccount(t.app);
    const visitor = await buildChattingVisitor(t.app, owner.widgetKey, 'Do you offer gift wrapping for presents?');
    expect((await reply(owner.token, visitor.id, 'Yes, gift wrapping costs $4 per item.')).status).toBe(201);
    // A second reply in a row is not an answer to a question: nothing more is learned.
    await reply(owner.token, visitor.id, 'Anything else?');

    const res = await ask(owner.token, 'Can you gift wrap it for me?');
    expect(res.body.data[1].content).toBe('Yes, gift wrapping costs $4 per item.');
    expect(res.body.data[1].confidence_score).toBeGreaterThanOrEqual(0.6);
    expect(res.body.ai_learning_progress.learned_patterns).toBe(1);
    const insights = await call(t.app, 'GET', '/api/chatbot/insights', { token: owner.token });
    expect(insights.body.insights.patterns.learned_from_conversations).toBe(1);
  });

  it('does not learn greetings', async () => {
    const owner = await buildAccount(t.app);
    const visitor = await buildChattingVisitor(t.app, owner.widgetKey, 'Hello there');
    await reply(owner.token, visitor.id, 'Hi! How can I help?');
    const res = await call(t.app, 'GET', '/api/chatbot/history', { token: owner.token });
    expect(res.body.ai_learning_progress.learned_patterns).toBe(0);
  });
});

describe('LLM answers (OpenAI-compatible stand-in)', () => {
  let server: http.Server;
  let mode: 'ok' | 'error' | 'hang' = 'ok';
  const seen: { url: string; auth: string | undefined; body: { model: string; messages: { role: string; content: string }[] } }[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', auth: req.headers.authorization, body: JSON.parse(raw) });
        if (mode === 'hang') return; // never answers: the client must time out
        if (mode === 'error') return res.writeHead(500).end('{"error":"boom"}');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'We deliver to every country within 3 to 5 days.' } }] }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    // A loaded machine may take a while to answer; the hang case below shortens it.
    t.app.config.llm = { baseUrl: `http://127.0.0.1:${port}`, model: 'stand-in', apiKey: 'k-123', timeoutMs: 10_000 };
  });
  afterAll(async () => {
    t.app.config.llm = undefined;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('lets the model phrase the answer from the retrieved knowledge, with the same confidence', async () => {
    const owner = await buildAccount(t.app);
    await ask(owner.token, 'remember: we ship worldwide in 3-5 days');
    mode = 'ok';
    const res = await ask(owner.token, 'Do you ship internationally?');
    expect(res.body.data[1].content).toBe('We deliver to every country within 3 to 5 days.');
    const req = seen.at(-1)!;
    expect(req.url).toBe('/v1/chat/completions');
    expect(req.auth).toBe('Bearer k-123');
    expect(req.body.model).toBe('stand-in');
    expect(req.body.messages[0]!.content).toContain('we ship worldwide in 3-5 days');
    expect(req.body.messages[1]).toEqual({ role: 'user', content: 'Do you ship internationally?' });

    // Failure and timeout: the retrieval answer, same confidence.
    for (const m of ['error', 'hang'] as const) {
      mode = m;
      if (m === 'hang' && t.app.config.llm) t.app.config.llm.timeoutMs = 300;
      const fallback = await ask(owner.token, 'Do you ship internationally?');
      expect(fallback.status).toBe(201);
      expect(fallback.body.data[1].content).toBe('we ship worldwide in 3-5 days');
      expect(fallback.body.data[1].confidence_score).toBe(res.body.data[1].confidence_score);
    }
    if (t.app.config.llm) t.app.config.llm.timeoutMs = 10_000;
  });

  it('is not asked when the engine does not know', async () => {
    const owner = await buildAccount(t.app);
    mode = 'ok';
    const count = seen.length;
    const res = await ask(owner.token, 'Do you ship internationally?');
    expect(res.body.data[1].content).toMatch(/^I'm not sure/);
    expect(seen.length).toBe(count);
  });
});

describe('visitor auto-answer', () => {
  it('answers above the threshold when nobody is online, hands over on request, and counts AI Resolved', async () => {
    const owner = await buildAccount(t.app);
    await ask(owner.token, 'remember: we ship worldwide in 3-5 days');
    await call(t.app, 'POST', '/api/chatbot/settings', { token: owner.token, body: { auto_answer_enabled: true, threshold: 0.6 } });
    await everyoneOffline(t.app, owner);
    const since = new Date(Date.now() - 60_000);

    const visitor = await buildChattingVisitor(t.app, owner.widgetKey, 'Do you ship internationally?');
    let msgs = await widgetMessages(visitor);
    expect(msgs.map((m) => m.sender_type)).toEqual(['visitor', 'bot']);
    expect(msgs[1]!.message).toBe('we ship worldwide in 3-5 days');
    expect(await aiResolvedCount(t.app.db, owner.user.account_id, since)).toBe(1);

    // Below the threshold: silence, a human will answer.
    await visitorSays(visitor, 'Can I pay with bitcoin?');
    expect((await widgetMessages(visitor)).length).toBe(3);

    await visitorSays(visitor, 'I want to talk to a human please');
    msgs = await widgetMessages(visitor);
    expect(msgs.at(-1)!.sender_type).toBe('bot');
    expect(msgs.at(-1)!.message.startsWith(HANDOVER_MESSAGE)).toBe(true);
    expect(await aiResolvedCount(t.app.db, owner.user.account_id, since)).toBe(0);
    // Handed over: the bot stays quiet even on a question it knows.
    await visitorSays(visitor, 'Do you ship internationally?');
    expect((await widgetMessages(visitor)).at(-1)!.sender_type).toBe('visitor');

    // The hand-over is seen in other languages too.
    const other = await buildChattingVisitor(t.app, owner.widgetKey, 'Je voudrais parler à un conseiller');
    expect((await widgetMessages(other)).at(-1)!.message.startsWith(HANDOVER_MESSAGE)).toBe(true);
  });

  it('stays quiet when an agent is online, or when the owner has not enabled it', async () => {
    const owner = await buildAccount(t.app);
    await ask(owner.token, 'remember: we ship worldwide in 3-5 days');
    const offByDefault = await buildChattingVisitor(t.app, owner.widgetKey, 'Do you ship internationally?');
    await everyoneOffline(t.app, owner);
    expect((await widgetMessages(offByDefault)).length).toBe(1);

    await call(t.app, 'POST', '/api/chatbot/settings', { token: owner.token, body: { auto_answer_enabled: true, threshold: 0.6 } });
    // The owner just used the console: online.
    const online = await buildChattingVisitor(t.app, owner.widgetKey, 'Do you ship internationally?');
    expect((await widgetMessages(online)).length).toBe(1);
  });
});
