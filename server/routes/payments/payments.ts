import { eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { logPaymentMode, paymentMode, providerFor, providerForPayment, REFERENCE_PATTERN } from '../../billing/index.js';
import { findPayment, INVALID_PLAN_MESSAGE, startCheckout, verifyPayment } from '../../billing/checkout.js';
import { chargeFromWebhook, validPaystackSignature } from '../../billing/paystack.js';
import { decideSandboxCharge, findSandboxCharge, reportOf, sandboxCheckoutHtml } from '../../billing/sandbox.js';
import { type Settlement, settlePayment } from '../../billing/settle.js';
import { payments, plans } from '../../db/schema.js';
import { HttpError, notFound } from '../../errors.js';
import { authenticate } from '../../plugins/auth.js';
import { authorize } from '../../policies/index.js';
import { presentSubscription } from '../../presenters/subscription.js';
import { paymentInitAnswerSchema, paymentVerificationAnswerSchema } from '../../presenters/dtoSchemas.js';
import type { PaymentVerificationAnswer } from '@parley/shared';
import { publicBase } from '../integration/integration.js';

const secured = { security: [{ bearer: [] }] };

const initializeSchema = z.object({
  plan_id: z
    .union([z.number(), z.string()], { error: INVALID_PLAN_MESSAGE })
    .refine((v) => (typeof v === 'number' ? Number.isInteger(v) && v >= 1 && v <= 2_147_483_647 : /^[1-9]\d{0,8}$/.test(v)), {
      error: INVALID_PLAN_MESSAGE,
    })
    .transform(Number),
  // Sent by the console but never trusted: the signed-in owner pays for their own account.
  email: z.unknown().optional(),
  user_id: z.unknown().optional(),
});

const referenceParams = z.object({ reference: z.string().max(200) });

const paymentNotFound = () => notFound('Payment not found');

/** The verify-payment answer for a settled (or still pending) payment. */
function verifyAnswer({ payment, subscription }: Settlement): PaymentVerificationAnswer {
  if (payment.status === 'success' && subscription) {
    return { status: 'success', message: 'Payment verified successfully', reference: payment.reference, subscription: presentSubscription(subscription) };
  }
  const messages = {
    success: 'Payment verified successfully',
    failed: `Payment failed: ${payment.statusText || 'the payment was declined'}`,
    abandoned: 'Payment was not completed',
    pending: 'Payment is still being processed',
  } as const;
  return { status: payment.status, message: messages[payment.status], reference: payment.reference };
}

export default async function paymentsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  logPaymentMode(app);

  app.post(
    '/initialize-payment',
    { schema: { tags: ['billing'], body: initializeSchema, response: { 200: paymentInitAnswerSchema }, ...secured }, onRequest: authenticate },
    async (request) => {
      authorize(request.actor, 'billing.manage');
      const base = publicBase(request);
      const { reference, authorizationUrl } = await startCheckout(app.db, providerFor(app, base), {
        accountId: request.actor.accountId,
        userId: request.actor.id,
        email: request.actor.email,
        planId: request.body.plan_id,
        currency: app.config.paystack.currency,
        callbackUrl: `${base}/subscription`,
      });
      return { status: 'success' as const, message: 'Authorization URL created', authorization_url: authorizationUrl, reference };
    },
  );

  app.get(
    '/verify-payment/:reference',
    { schema: { tags: ['billing'], params: referenceParams, response: { 200: paymentVerificationAnswerSchema }, ...secured }, onRequest: authenticate },
    async (request) => {
      authorize(request.actor, 'billing.manage');
      const { reference } = request.params;
      if (!REFERENCE_PATTERN.test(reference)) throw paymentNotFound();
      const payment = await findPayment(app.db, request.actor.accountId, reference);
      if (!payment) throw paymentNotFound();
      const provider = providerForPayment(app, payment.provider, publicBase(request));
      const settlement = await verifyPayment(app.db, app.jobs, provider, payment, new Date());
      return verifyAnswer(settlement);
    },
  );

  await app.register(paystackWebhook);
  await app.register(sandboxCheckout);
}

/** Own context: the webhook needs the raw bytes for the signature, so JSON is parsed here, after the check. */
async function paystackWebhook(app: FastifyInstance): Promise<void> {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body: Buffer, done) => done(null, body));

  app.post('/webhooks/paystack', { schema: { tags: ['billing'], hide: true } }, async (request) => {
    const raw = request.body;
    const { secretKey } = app.config.paystack;
    if (!secretKey || !Buffer.isBuffer(raw) || !validPaystackSignature(raw, request.headers['x-paystack-signature'], secretKey)) {
      throw new HttpError(401, 'Invalid signature');
    }
    let payload: unknown;
    try {
      payload = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new HttpError(400, 'The request body is not valid JSON');
    }
    const charge = chargeFromWebhook(payload);
    if (charge) {
      // A reference of a sandbox payment is not Paystack's to settle.
      const [payment] = await app.db.select({ provider: payments.provider }).from(payments).where(eq(payments.reference, charge.reference));
      if (payment?.provider === 'paystack') await settlePayment(app.db, charge, new Date(), app.jobs);
    }
    // Unknown references and other events are acknowledged, so Paystack does not retry them forever.
    return { status: 'success' };
  });
}

/** The offline sandbox's checkout page (only while it is the provider in force). */
async function sandboxCheckout(app: FastifyInstance): Promise<void> {
  // The page's plain HTML forms post urlencoded bodies; they carry nothing we read.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, _body, done) => done(null, {}));

  const load = async (request: FastifyRequest<{ Params: { reference: string } }>) => {
    if (paymentMode(app.config) !== 'sandbox') throw notFound();
    const { reference } = request.params;
    if (typeof reference !== 'string' || !REFERENCE_PATTERN.test(reference)) throw notFound();
    const charge = await findSandboxCharge(app.db, reference);
    if (!charge) throw notFound();
    return charge;
  };
  const backToConsole = (request: FastifyRequest, reply: FastifyReply, reference: string) =>
    reply.redirect(`${publicBase(request)}/subscription?reference=${encodeURIComponent(reference)}`, 302);

  const path = '/payments/sandbox/checkout/:reference';
  app.get<{ Params: { reference: string } }>(path, { schema: { hide: true } }, async (request, reply) => {
    const charge = await load(request);
    const [row] = await app.db
      .select({ planName: plans.name })
      .from(payments)
      .innerJoin(plans, eq(plans.id, payments.planId))
      .where(eq(payments.reference, charge.reference));
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-frame-options', 'DENY')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
      .send(sandboxCheckoutHtml({ ...charge, planName: row?.planName ?? '', decided: charge.status !== 'pending' }));
  });

  for (const choice of ['pay', 'decline'] as const) {
    app.post<{ Params: { reference: string } }>(`${path}/${choice}`, { schema: { hide: true } }, async (request, reply) => {
      const charge = await load(request);
      const decided = await decideSandboxCharge(app.db, charge.reference, choice === 'pay');
      // What Paystack's webhook does: settle at once, even if the browser never comes back.
      if (decided) await settlePayment(app.db, reportOf(decided), new Date(), app.jobs);
      return backToConsole(request, reply, charge.reference);
    });
  }
  app.post<{ Params: { reference: string } }>(`${path}/return`, { schema: { hide: true } }, async (request, reply) => {
    const charge = await load(request);
    return backToConsole(request, reply, charge.reference);
  });
}
