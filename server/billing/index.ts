/** Picks the provider in force from the configuration. */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../errors.js';
import { PaystackProvider } from './paystack.js';
import type { PaymentProvider } from './provider.js';
import { SandboxProvider } from './sandbox.js';

/** Which provider the configuration puts in force: Paystack with a key, else the sandbox unless turned off. */
export function paymentMode(config: FastifyInstance['config']): 'paystack' | 'sandbox' | 'off' {
  if (config.paystack.secretKey) return 'paystack';
  return config.paystack.sandbox ? 'sandbox' : 'off';
}

export const PAYMENTS_OFF = 'Plan payments are not available on this server: no payment provider is configured.';

/** The provider in force now: chosen per call so a changed config takes effect at once. */
export function providerFor(app: FastifyInstance, publicBase: string): PaymentProvider {
  const { secretKey, baseUrl } = app.config.paystack;
  const mode = paymentMode(app.config);
  if (mode === 'paystack' && secretKey) return new PaystackProvider(secretKey, baseUrl);
  if (mode === 'sandbox') return new SandboxProvider(app.db, publicBase);
  throw new HttpError(503, PAYMENTS_OFF);
}

/** The start-up line that says how plan payments are taken; loud when nobody pays for real. */
export function logPaymentMode(app: FastifyInstance): void {
  const mode = paymentMode(app.config);
  if (mode === 'sandbox') {
    app.log.warn(
      'PAYMENT SANDBOX: no PAYSTACK_SECRET_KEY is set, so plan upgrades go through the built-in SANDBOX checkout and NO MONEY IS TAKEN. ' +
        'Set PAYSTACK_SECRET_KEY to take real payments, or PAYMENT_SANDBOX=false to refuse plan payments.',
    );
  } else if (mode === 'off') {
    app.log.warn('Plan payments are off: no PAYSTACK_SECRET_KEY and PAYMENT_SANDBOX=false.');
  } else {
    app.log.info('Plan payments go through Paystack.');
  }
}


/**
 * The provider that created a payment, if it is still the one in force: a sandbox payment is
 * never settled once a real key is configured, nor a Paystack one without its key.
 */
export function providerForPayment(app: FastifyInstance, name: 'paystack' | 'sandbox', publicBase: string): PaymentProvider | undefined {
  if (paymentMode(app.config) !== name) return undefined;
  return providerFor(app, publicBase);
}

/** Our own unique reference: Paystack allows only alphanumerics, '-', '.' and '='. */
export const newPaymentReference = (): string => `prl-${randomBytes(12).toString('hex')}`;
export const REFERENCE_PATTERN = /^[A-Za-z0-9.=-]{1,100}$/;
