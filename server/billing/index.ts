/** Picks the provider in force from the configuration. */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { PaystackProvider } from './paystack.js';
import type { PaymentProvider } from './provider.js';
import { SandboxProvider } from './sandbox.js';

/** The provider in force now: chosen per call so a changed config takes effect at once. */
export function providerFor(app: FastifyInstance, publicBase: string): PaymentProvider {
  const { secretKey, baseUrl } = app.config.paystack;
  if (secretKey) return new PaystackProvider(secretKey, baseUrl);
  return new SandboxProvider(app.db, publicBase);
}


/**
 * The provider that created a payment, if it is still the one in force: a sandbox payment is
 * never settled once a real key is configured, nor a Paystack one without its key.
 */
export function providerForPayment(app: FastifyInstance, name: 'paystack' | 'sandbox', publicBase: string): PaymentProvider | undefined {
  const provider = providerFor(app, publicBase);
  return provider.name === name ? provider : undefined;
}

/** Our own unique reference: Paystack allows only alphanumerics, '-', '.' and '='. */
export const newPaymentReference = (): string => `prl-${randomBytes(12).toString('hex')}`;
export const REFERENCE_PATTERN = /^[A-Za-z0-9.=-]{1,100}$/;
