/**
 * Paystack adapter: POST /transaction/initialize, GET /transaction/verify/:reference, and the
 * webhook's x-paystack-signature (hex HMAC-SHA512 of the raw body with the secret key).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type ChargeReport, type ChargeStatus, type InitializeInput, type PaymentProvider, providerUnavailable } from './provider.js';

const TIMEOUT_MS = 15_000;

interface PaystackEnvelope<T> {
  status?: boolean;
  message?: string;
  data?: T;
}

interface PaystackTransaction {
  reference?: unknown;
  status?: unknown;
  amount?: unknown;
  currency?: unknown;
  gateway_response?: unknown;
}

const KNOWN: readonly ChargeStatus[] = ['success', 'failed', 'abandoned', 'reversed'];

/** Paystack's transaction object -> our report; ongoing/pending/processing/queued all wait. */
export function toChargeReport(tx: PaystackTransaction, fallbackReference: string): ChargeReport | undefined {
  const amount = typeof tx.amount === 'number' ? tx.amount : Number(tx.amount);
  if (!Number.isFinite(amount)) return undefined;
  const status = typeof tx.status === 'string' && (KNOWN as string[]).includes(tx.status) ? (tx.status as ChargeStatus) : 'pending';
  return {
    reference: typeof tx.reference === 'string' ? tx.reference : fallbackReference,
    status,
    amount,
    currency: typeof tx.currency === 'string' ? tx.currency.toUpperCase() : '',
    gatewayResponse: typeof tx.gateway_response === 'string' ? tx.gateway_response.slice(0, 500) : '',
  };
}

export class PaystackProvider implements PaymentProvider {
  readonly name = 'paystack' as const;

  constructor(
    private readonly secretKey: string,
    private readonly baseUrl: string,
  ) {}

  private async request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ http: number; json: PaystackEnvelope<T> }> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.secretKey}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch {
      throw providerUnavailable();
    }
    let json: PaystackEnvelope<T>;
    try {
      json = (await res.json()) as PaystackEnvelope<T>;
    } catch {
      throw providerUnavailable();
    }
    return { http: res.status, json: json ?? {} };
  }

  async initialize(input: InitializeInput): Promise<{ authorizationUrl: string }> {
    const { http, json } = await this.request<{ authorization_url?: unknown }>('POST', '/transaction/initialize', {
      email: input.email,
      amount: input.amount,
      currency: input.currency,
      reference: input.reference,
      callback_url: input.callbackUrl,
      metadata: input.metadata,
    });
    const url = json.data?.authorization_url;
    if (http >= 300 || json.status !== true || typeof url !== 'string' || !/^https?:\/\//.test(url)) throw providerUnavailable();
    return { authorizationUrl: url };
  }

  async verify(reference: string): Promise<ChargeReport | undefined> {
    const { http, json } = await this.request<PaystackTransaction>('GET', `/transaction/verify/${encodeURIComponent(reference)}`);
    // Paystack answers an unknown reference with 400/404 and status false.
    if ((http === 400 || http === 404) && json.status === false) return undefined;
    if (http >= 300 || json.status !== true || !json.data) throw providerUnavailable();
    const report = toChargeReport(json.data, reference);
    if (!report) throw providerUnavailable();
    return report;
  }
}

/** Constant-time check of x-paystack-signature against the raw body. */
export function validPaystackSignature(rawBody: Buffer, header: string | string[] | undefined, secretKey: string): boolean {
  if (typeof header !== 'string' || !/^[0-9a-f]{128}$/i.test(header)) return false;
  const expected = createHmac('sha512', secretKey).update(rawBody).digest();
  const given = Buffer.from(header, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The charge a signed webhook reports, or undefined for events that settle nothing. */
export function chargeFromWebhook(payload: unknown): ChargeReport | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const { event, data } = payload as { event?: unknown; data?: unknown };
  if (event !== 'charge.success' || typeof data !== 'object' || data === null) return undefined;
  const tx = data as PaystackTransaction;
  if (typeof tx.reference !== 'string') return undefined;
  return toChargeReport(tx, tx.reference);
}
