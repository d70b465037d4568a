/**
 * The card payment provider behind one interface (PRODUCT.md section 7): Paystack when a
 * secret key is configured, the offline sandbox otherwise.
 */
import { HttpError } from '../errors.js';

/** Provider-side state of a transaction, in Paystack's words (other values count as pending). */
export type ChargeStatus = 'success' | 'failed' | 'abandoned' | 'reversed' | 'pending';

export interface InitializeInput {
  reference: string;
  /** In the currency's subunit (cents). */
  amount: number;
  currency: string;
  email: string;
  /** Where the provider sends the browser back (it appends the reference). */
  callbackUrl: string;
  metadata: Record<string, string | number>;
}

/** What the provider says about one transaction (from verify or a signed webhook). */
export interface ChargeReport {
  reference: string;
  status: ChargeStatus;
  amount: number;
  currency: string;
  /** The provider's human text ("Successful", "Declined"...). */
  gatewayResponse: string;
}

export interface PaymentProvider {
  readonly name: 'paystack' | 'sandbox';
  initialize(input: InitializeInput): Promise<{ authorizationUrl: string }>;
  /** undefined when the provider does not know the reference. */
  verify(reference: string): Promise<ChargeReport | undefined>;
}

/** Every currency Paystack accepts (NGN, GHS, ZAR, KES, USD) has 100 subunits. */
export const toSubunit = (price: number): number => Math.round(price * 100);
export const fromSubunit = (amount: number): number => amount / 100;

export const providerUnavailable = () => new HttpError(502, 'The payment provider is unavailable. Please try again.');
