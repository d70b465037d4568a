/**
 * The way back from a reply email (issue 12 item 8; notifications/visitorReply.ts sends it):
 * `GET /api/chat/<signed link>` is a hosted chat page of the business that loads the widget
 * (the same widget.js a site pastes) with the visitor's conversation restored and opened; the
 * page trades the link for a widget token of its own with `POST /api/widget/resume`, so a mail
 * scanner fetching the link creates nothing. See docs/DECISIONS.md "Reply emails to visitors".
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accounts, visitors, widgetSettings } from '../../db/schema.js';
import type { Db } from '../../db/client.js';
import { notFound } from '../../errors.js';
import { limitNewVisitor, limitWidgetCalls } from '../../plugins/visitorAuth.js';
import { consoleConnectSources, consoleCsp } from '../../plugins/webApp.js';
import { escapeHtml } from '../../services/html.js';
import { okSchema, widgetResumeDtoSchema } from '../../presenters/dtoSchemas.js';
import { issueVisitorToken, verifyVisitorLink } from '../../services/visitorLinks.js';

export const LINK_INVALID = 'This chat link is not valid or has expired';

const resumeSchema = z.object({ link: z.string({ error: LINK_INVALID }).max(200, { error: LINK_INVALID }) });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The visitor behind a genuine, unexpired link, with their business; undefined otherwise. With
 * `bareId`, a plain visitor id is accepted too: the page's address once the link is traded
 * (a reload), which works only in the browser already holding that visitor's token.
 */
async function linkedVisitor(db: Db, link: string, bareId = false) {
  const visitorId = bareId && UUID.test(link) ? link : await verifyVisitorLink(db, link);
  if (!visitorId) return undefined;
  const [row] = await db
    .select({ visitor: visitors, widgetKey: accounts.widgetKey, business: widgetSettings.name, color: widgetSettings.color })
    .from(visitors)
    .innerJoin(accounts, eq(accounts.id, visitors.accountId))
    .leftJoin(widgetSettings, eq(widgetSettings.accountId, visitors.accountId))
    .where(eq(visitors.id, visitorId));
  return row;
}

/** JSON for a <script> body: nothing in it can close the element. */
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

function page(opts: { title: string; heading: string; text: string; color: string; nonce?: string; boot?: { key: string; link: string; visitorId: string } }): string {
  const boot = opts.boot
    ? `<script nonce="${opts.nonce}">
(function () {
  var cfg = ${scriptJson(opts.boot)};
  var store = 'parley:' + cfg.key;
  function start() {
    window.Parley = window.Parley || function () { (window.Parley.q = window.Parley.q || []).push(arguments); };
    window.Parley('open');
    var s = document.createElement('script');
    s.src = '/widget.js';
    s.async = true;
    s.setAttribute('data-widget', cfg.key);
    document.body.appendChild(s);
  }
  // The widget reports this page's address to the agents: never the link itself.
  function forgetLink() { history.replaceState(null, '', '/api/chat/' + cfg.visitorId); }
  try {
    var saved = JSON.parse(localStorage.getItem(store) || 'null');
    if (saved && saved.visitor_id === cfg.visitorId && saved.visitor_token) { forgetLink(); return start(); }
  } catch (e) {}
  if (!cfg.link) { document.getElementById('state').textContent = ${scriptJson(LINK_INVALID)} + '.'; return; }
  fetch('/api/widget/resume', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ link: cfg.link }) })
    .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
    .then(function (b) {
      try { localStorage.setItem(store, JSON.stringify({ visitor_id: b.data.visitor_id, visitor_token: b.data.visitor_token, name: b.data.name, email: b.data.email })); } catch (e) {}
      forgetLink();
      start();
    })
    .catch(function () { document.getElementById('state').textContent = ${scriptJson(LINK_INVALID)} + '.'; });
})();
</script>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(opts.title)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;background:#f4f4f8;color:#222}
header{background:${escapeHtml(opts.color)};color:#fff;padding:1.5rem 1rem}
header h1{margin:0 auto;max-width:640px;font-size:1.4rem}
main{max-width:640px;margin:1.5rem auto;padding:0 1rem;line-height:1.5}
</style>
</head>
<body>
<header><h1>${escapeHtml(opts.heading)}</h1></header>
<main><p id="state">${escapeHtml(opts.text)}</p></main>
${boot}
</body>
</html>`;
}

export default async function chatLinkRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // The widget's per-IP limits; trading a link for a token also counts as a new visitor.
  limitWidgetCalls(app, { keys: false });

  app.get<{ Params: { link: string } }>('/chat/:link', { schema: { hide: true } }, async (request, reply) => {
    const link = String(request.params.link ?? '');
    const row = await linkedVisitor(app.db, link, true);
    const nonce = randomBytes(16).toString('base64');
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .header(
        'content-security-policy',
        // As the console's (plugins/webApp.ts), plus this page's one inline script by its nonce.
        consoleCsp(consoleConnectSources(request, app.config.publicUrl)).replace("script-src 'self'", `script-src 'self' 'nonce-${nonce}'`),
      );
    if (!row) {
      return reply.status(404).send(page({ title: 'Chat link', heading: 'Chat link', text: `${LINK_INVALID}. Please visit the website to start a new chat.`, color: '#667eea' }));
    }
    const business = row.business?.trim() || 'Support';
    return reply.send(
      page({
        title: `Chat with ${business}`,
        heading: `Chat with ${business}`,
        text: `Your conversation with ${business} opens in the chat window. Write there to continue it.`,
        color: /^#[0-9a-fA-F]{3,8}$/.test(row.color ?? '') ? row.color! : '#667eea',
        nonce,
        boot: { key: row.widgetKey, link: UUID.test(link) ? '' : link, visitorId: row.visitor.id },
      }),
    );
  });

  app.post(
    '/widget/resume',
    {
      schema: {
        tags: ['widget'],
        description: "Trades a reply email's signed link for a widget token of the same visitor (the hosted chat page calls it).",
        body: resumeSchema,
        response: { 200: okSchema(widgetResumeDtoSchema) },
      },
      preValidation: limitNewVisitor,
    },
    async (request) => {
      const row = await linkedVisitor(app.db, request.body.link);
      if (!row) throw notFound(LINK_INVALID);
      const token = await issueVisitorToken(app.db, row.visitor.id);
      return { message: 'success', data: { visitor_id: row.visitor.id, visitor_token: token, name: row.visitor.name, email: row.visitor.email } };
    },
  );
}
