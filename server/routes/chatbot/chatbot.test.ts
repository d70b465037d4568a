import { eq } from 'drizzle-orm';
import { subscriptions } from '../../db/schema.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_IMAGE_MAX_BYTES, CHAT_IMAGE_TOO_LARGE, MESSAGE_REQUIRED, NOT_AN_IMAGE } from '@parley/shared';
import { createTestApp, type TestApp } from '../../test/harness.js';
import { buildAccount, buildMember, call, type TestOwner } from '../../test/factories.js';
import { askAssistant } from '../../test/assistant.js';
import { callMultipart, pngFile, TINY_PNG } from '../../test/multipart.js';
import { FEEDBACK_INVALID, MESSAGE_ID_INVALID, THRESHOLD_INVALID } from './chatbot.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const ask = (token: string, message: string) => askAssistant(t.app, token, message);
const rate = (token: string, fields: Record<string, string>) => callMultipart(t.app, 'POST', '/api/chatbot/message', { token, fields });

describe('authentication', () => {
  it.each([
    ['GET', '/api/chatbot/history'],
    ['POST', '/api/chatbot/message'],
    ['GET', '/api/chatbot/insights'],
    ['GET', '/api/chatbot/settings'],
    ['POST', '/api/chatbot/settings'],
  ] as const)('%s %s answers 401 without a token', async (method, url) => {
    const res = await call(t.app, method, url);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'No authentication token found', error: 'No authentication token found' });
  });
});

describe('GET /api/chatbot/history', () => {
  it('starts empty with real zero figures and default suggestions', async () => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'GET', '/api/chatbot/history', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'success',
      data: [],
      suggestions: ['Hello', 'Need help?', 'Contact support'],
      ai_learning_progress: { total_interactions: 0, learned_patterns: 0, average_confidence: 0, learning_efficiency: 0 },
    });
  });

  it('is per user: a team member does not see the owner chat, and both count their own interactions', async () => {
    const owner = await buildAccount(t.app);
    const member = await buildMember(t.app, owner, 'Agent');
    await ask(owner.token, 'Hello');
    await ask(member.token, 'Need help?');
    await ask(member.token, 'What are your prices?');
    const mine = await call(t.app, 'GET', '/api/chatbot/history', { token: owner.token });
    const theirs = await call(t.app, 'GET', '/api/chatbot/history', { token: member.token });
    expect(mine.body.data.map((m: { content: string }) => m.content)[0]).toBe('Hello');
    expect(mine.body.data).toHaveLength(2);
    expect(theirs.body.data).toHaveLength(4);
    expect(mine.body.ai_learning_progress.total_interactions).toBe(1);
    expect(theirs.body.ai_learning_progress.total_interactions).toBe(2);
  });
});

describe('POST /api/chatbot/message', () => {
  let owner: TestOwner;
  beforeAll(async () => {
    owner = await buildAccount(t.app);
  });

  it('answers a greeting with the account greeting, in the documented shapes', async () => {
    const res = await ask(owner.token, '  Hello  ');
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('success');
    const [user, bot] = res.body.data;
    expect(user).toMatchObject({ sender_type: 'user', content: 'Hello', file_path: '', confidence_score: null, intent_detected: null });
    expect(bot).toMatchObject({ sender_type: 'bot', content: 'Hello! How can we assist you today?', intent_detected: 'greeting', feedback: null });
    expect(bot.confidence_score).toBeGreaterThanOrEqual(0.8);
    expect(Object.keys(bot).sort()).toEqual(['confidence_score', 'content', 'created_at', 'feedback', 'file_path', 'id', 'intent_detected', 'sender_type', 'sources']);
    // Issue 17: the sources an answer cites; a greeting cites none.
    expect(bot.sources).toEqual([]);
    expect(Array.isArray(res.body.suggestions)).toBe(true);
    expect(res.body.ai_learning_progress).toMatchObject({ total_interactions: 1, learned_patterns: 0 });
  });

  it('says it does not know instead of inventing, with a low confidence', async () => {
    const res = await ask(owner.token, 'What is the airspeed velocity of an unladen swallow?');
    const bot = res.body.data[1];
    expect(bot.content).toMatch(/^I'm not sure about that yet/);
    expect(bot.confidence_score).toBeLessThan(0.6);
    expect(bot.intent_detected).toBe('unknown');
  });

  it.each([
    [{}, 'message', MESSAGE_REQUIRED],
    [{ message: '   ' }, 'message', MESSAGE_REQUIRED],
    [{ message: 'x'.repeat(5001) }, 'message', 'Message must be at most 5000 characters'],
    [{ feedback: 'great' }, 'feedback', FEEDBACK_INVALID],
    [{ feedback: 'helpful', message_id: 'abc' }, 'message_id', MESSAGE_ID_INVALID],
    [{ feedback: 'helpful', message_id: "1' or 1=1" }, 'message_id', MESSAGE_ID_INVALID],
  ])('refuses %o with 422 "%s: %s"', async (fields, field, message) => {
    const res = await callMultipart(t.app, 'POST', '/api/chatbot/message', { token: owner.token, fields: fields as Record<string, string> });
    expect(res.status).toBe(422);
    expect(res.body.errors[field]).toEqual([message]);
    expect(res.body.message).toBe(message);
  });

  it('accepts a JSON body too, and keeps HTML text as plain text', async () => {
    const res = await call(t.app, 'POST', '/api/chatbot/message', { token: owner.token, body: { message: '<script>alert(1)</script>' } });
    expect(res.status).toBe(201);
    expect(res.body.data[0].content).toBe('<script>alert(1)</script>');
  });

  it('acknowledges an image with what it can tell (type, dimensions, size) and stores it', async () => {
    const res = await callMultipart(t.app, 'POST', '/api/chatbot/message', { token: owner.token, files: { image: pngFile() } });
    expect(res.status).toBe(201);
    const [user, bot] = res.body.data;
    expect(user.file_path).toMatch(new RegExp(`^${owner.user.account_id}/[\\w-]+\\.png$`));
    expect(bot).toMatchObject({ intent_detected: 'image', confidence_score: 1 });
    expect(bot.content).toContain(`PNG, 1×1 pixels, ${TINY_PNG.length} bytes`);
    const file = await t.app.inject({ method: 'GET', url: `/storage/${user.file_path}` });
    expect(file.statusCode).toBe(200);
  });

  it('refuses an image over 5 MB with 413 and the SPEC text, and a non-image with 415', async () => {
    const big = Buffer.concat([TINY_PNG, Buffer.alloc(CHAT_IMAGE_MAX_BYTES)]);
    const tooBig = await callMultipart(t.app, 'POST', '/api/chatbot/message', { token: owner.token, files: { image: pngFile(big) } });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.message).toBe(CHAT_IMAGE_TOO_LARGE);
    const text = { filename: 'x.png', contentType: 'image/png', data: Buffer.from('not an image at all') };
    const notImage = await callMultipart(t.app, 'POST', '/api/chatbot/message', { token: owner.token, files: { image: text } });
    expect(notImage.status).toBe(415);
    expect(notImage.body.message).toBe(NOT_AN_IMAGE);
  });

  it('refuses images from a disabled user (403) but still answers their text', async () => {
    const member = await buildMember(t.app, owner, 'Agent', { status: 'disabled' });
    const img = await callMultipart(t.app, 'POST', '/api/chatbot/message', { token: member.token, fields: { message: 'hi' }, files: { image: pngFile() } });
    expect(img.status).toBe(403);
    expect((await ask(member.token, 'hi')).status).toBe(201);
  });
});

describe('teach, then ask', () => {
  it('remembers a fact and answers a paraphrase of it; another account does not know it', async () => {
    const owner = await buildAccount(t.app);
    const taught = await ask(owner.token, 'remember: we ship worldwide in 3-5 days');
    expect(taught.body.data[1]).toMatchObject({ intent_detected: 'teach', content: "Got it! I'll remember: we ship worldwide in 3-5 days" });
    expect(taught.body.ai_learning_progress.learned_patterns).toBe(1);

    const res = await ask(owner.token, 'Do you ship internationally?');
    expect(res.body.data[1].content).toBe('we ship worldwide in 3-5 days');
    expect(res.body.data[1].intent_detected).toBe('shipping');
    expect(res.body.data[1].confidence_score).toBeGreaterThanOrEqual(0.6);

    const other = await buildAccount(t.app);
    const theirs = await ask(other.token, 'Do you ship internationally?');
    expect(theirs.body.data[1].content).toMatch(/^I'm not sure/);
    expect(theirs.body.ai_learning_progress.learned_patterns).toBe(0);
  });
});

describe('feedback', () => {
  it('applies to the latest bot message, replaces an earlier value, and re-weights the answer', async () => {
    const owner = await buildAccount(t.app);
    // Not a tiny knowledge base, where confidence is kept low on purpose (knowledge.ts).
    for (const fact of ['we ship worldwide in 3-5 days', 'gift wrapping costs $4', 'parking is free behind the shop', 'dogs are welcome inside']) {
      await ask(owner.token, `remember: ${fact}`);
    }
    await ask(owner.token, 'remember: our shop opens at 9am every day');
    const first = await ask(owner.token, 'When does the shop open?');
    const before = first.body.data[1].confidence_score as number;
    expect(before).toBeGreaterThanOrEqual(0.6);

    const helpful = await rate(owner.token, { feedback: 'helpful' });
    expect(helpful.status).toBe(200);
    expect(helpful.body.data).toEqual({ message_id: first.body.data[1].id, feedback: 'helpful', pending: false });
    const replaced = await rate(owner.token, { feedback: 'not_helpful', message_id: String(first.body.data[1].id) });
    expect(replaced.body.data.feedback).toBe('not_helpful');

    const insights = await call(t.app, 'GET', '/api/chatbot/insights', { token: owner.token });
    expect(insights.body.insights.feedback).toEqual({ helpful: 0, partially_helpful: 0, not_helpful: 1 });
    const history = await call(t.app, 'GET', '/api/chatbot/history', { token: owner.token });
    expect(history.body.data.find((m: { id: number }) => m.id === first.body.data[1].id).feedback).toBe('not_helpful');

    // Lower weight: the same question is answered with less confidence.
    const second = await ask(owner.token, 'When does the shop open?');
    expect(second.body.data[1].confidence_score).toBeLessThan(before);
    // Two more "not helpful" retire the pattern: the assistant stops giving that answer.
    await rate(owner.token, { feedback: 'not_helpful' });
    await ask(owner.token, 'When does the shop open?');
    await rate(owner.token, { feedback: 'not_helpful' });
    const last = await ask(owner.token, 'When does the shop open?');
    expect(last.body.data[1].content).toMatch(/^I'm not sure/);
    expect(last.body.ai_learning_progress.learned_patterns).toBe(4);
    const after = await call(t.app, 'GET', '/api/chatbot/insights', { token: owner.token });
    expect(after.body.insights.patterns).toMatchObject({ active: 4, retired: 1 });
  });

  it('answers 404 without a bot message, and for another user or account message id', async () => {
    const owner = await buildAccount(t.app);
    const none = await rate(owner.token, { feedback: 'helpful' });
    expect(none.status).toBe(404);
    const res = await ask(owner.token, 'Hello');
    const id = String(res.body.data[1].id);
    const member = await buildMember(t.app, owner, 'Admin');
    expect((await rate(member.token, { feedback: 'helpful', message_id: id })).status).toBe(404);
    const other = await buildAccount(t.app);
    expect((await rate(other.token, { feedback: 'helpful', message_id: id })).status).toBe(404);
    expect((await rate(owner.token, { feedback: 'helpful', message_id: '999999999' })).status).toBe(404);
    expect((await rate(owner.token, { feedback: 'partially_helpful', message_id: id })).status).toBe(200);
  });
});

describe('GET /api/chatbot/insights', () => {
  it('counts real figures', async () => {
    const owner = await buildAccount(t.app);
    await ask(owner.token, 'remember: parking is free behind the shop');
    await ask(owner.token, 'Is there free parking?');
    await ask(owner.token, 'Who won the world cup in 1966?');
    const res = await call(t.app, 'GET', '/api/chatbot/insights', { token: owner.token });
    expect(res.status).toBe(200);
    const p = res.body.insights.learning_progress;
    expect(p.total_interactions).toBe(3);
    expect(p.learned_patterns).toBe(1);
    // Two answers (the teaching acknowledgement is not one): one known, one not.
    expect(p.learning_efficiency).toBe(50);
    expect(p.average_confidence).toBeGreaterThan(0);
    expect(p.average_confidence).toBeLessThan(1);
    expect(res.body.insights.patterns).toEqual({ active: 1, retired: 0, taught: 1, learned_from_conversations: 0 });
  });
});

describe('/api/chatbot/settings', () => {
  it('defaults to off at 0.8; owner and Admin may change it, an Agent may not', async () => {
    const owner = await buildAccount(t.app);
    const get = await call(t.app, 'GET', '/api/chatbot/settings', { token: owner.token });
    expect(get.body).toMatchObject({
      message: 'success',
      data: { auto_answer_enabled: false, threshold: 0.8, auto_approve: false },
      figures: { answers_given: 0, handovers: 0, accuracy: null, rated_answers: 0, visitor_helpful: 0, visitor_not_helpful: 0 },
      plan: { ai_available: true, message: null },
      can_manage: true,
    });
    const saved = await call(t.app, 'POST', '/api/chatbot/settings', { token: owner.token, body: { auto_answer_enabled: true, threshold: 0.7 } });
    expect(saved.body.data).toEqual({ auto_answer_enabled: true, threshold: 0.7, auto_approve: false });
    const admin = await buildMember(t.app, owner, 'Admin');
    expect((await call(t.app, 'POST', '/api/chatbot/settings', { token: admin.token, body: { threshold: 0.9 } })).body.data.threshold).toBe(0.9);
    const agent = await buildMember(t.app, owner, 'Agent');
    expect((await call(t.app, 'POST', '/api/chatbot/settings', { token: agent.token, body: { threshold: 0.6 } })).status).toBe(403);
    expect((await call(t.app, 'GET', '/api/chatbot/settings', { token: agent.token })).body.data.threshold).toBe(0.9);
  });

  it.each([[{ threshold: 0.2 }], [{ threshold: 1.5 }], [{ threshold: 'high' }]])('refuses %o with 422', async (body) => {
    const owner = await buildAccount(t.app);
    const res = await call(t.app, 'POST', '/api/chatbot/settings', { token: owner.token, body });
    expect(res.status).toBe(422);
    expect(res.body.errors.threshold).toEqual([THRESHOLD_INVALID]);
  });
});

describe('plan', () => {
  it('keeps the assistant for Professional and its trial; Starter gets 403 and keeps reading its history', async () => {
    const owner = await buildAccount(t.app);
    expect((await callMultipart(t.app, 'POST', '/api/chatbot/message', { token: owner.token, fields: { message: 'Hello' } })).status).toBe(201);
    // The trial ends with nothing paid: Starter.
    await t.database.db.update(subscriptions).set({ expiryDate: new Date(Date.now() - 1000) }).where(eq(subscriptions.accountId, owner.user.account_id));
    const res = await callMultipart(t.app, 'POST', '/api/chatbot/message', { token: owner.token, fields: { message: 'Hello again' } });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('The AI assistant is part of the Professional plan. Upgrade to keep using it.');
    const history = await call(t.app, 'GET', '/api/chatbot/history', { token: owner.token });
    expect(history.status).toBe(200);
    expect(history.body.data.length).toBeGreaterThan(0);
  });
});
