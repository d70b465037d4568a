/** Picks the provider in force from the configuration. */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { PaystackProvider } from './paystack.js';
import type { PaymentProvider } from './provider.js';
import { SandboxProvider } from './sandbox.js';

export interface BillingSettings {
  secretKey: string | undefined;
  baseUrl: string;
  currency: string;
}

export const PAYSTACK_DEFAULT_BASE_URL = 'https://api.paystack.co';

/**
 * Billing settings from the config. config.ts gains a `paystack` section (see the report);
 * until then, and for tests that swap the key at run time, read it defensively each time.
 */
export function billingSettings(config: Config): BillingSettings {
  const p = (config as Config & { paystack?: Partial<BillingSettings> }).paystack ?? {};
  const currency = (p.currency ?? 'USD').trim().toUpperCase();
  return {
    secretKey: p.secretKey?.trim() ? p.secretKey.trim() : undefined,
    baseUrl: (p.baseUrl?.trim() || PAYSTACK_DEFAULT_BASE_URL).replace(/\/+$/, ''),
    currency: /^[A-Z]{3}$/.test(currency) ? currency : 'USD',
  };
}

/** The provider in force now: chosen per call so a changed config takes effect at once. */
export function providerFor(app: FastifyInstance, publicBase: string): PaymentProvider {
  const settings = billingSettings(app.config);
  if (settings.secretKey) return new PaystackProvider(settings.secretKey, settings.baseUrl);
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
