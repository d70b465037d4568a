/**
 * Test helper: a local stand-in for Paystack's API on node:http, speaking the documented
 * shapes (POST /transaction/initialize, GET /transaction/verify/:reference) and signing
 * webhooks with the secret key as Paystack does.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface InitializeCall {
  authorization: string | undefined;
  body: { email: string; amount: number; currency: string; reference: string; callback_url: string; metadata?: unknown };
}

export interface StandInTransaction {
  reference: string;
  status: string;
  amount: number;
  currency: string;
  gateway_response: string;
}

export class PaystackStandIn {
  readonly secret = `sk_test_${Math.random().toString(36).slice(2)}`;
  readonly initializeCalls: InitializeCall[] = [];
  readonly verifyCalls: string[] = [];
  readonly transactions = new Map<string, StandInTransaction>();
  /** When set, every call answers this HTTP status with an error body. */
  failWith: number | undefined;
  private server: http.Server | undefined;
  baseUrl = '';

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** What the customer did on Paystack's page for this reference. */
  settle(reference: string, patch: Partial<StandInTransaction>): void {
    const tx = this.transactions.get(reference);
    if (!tx) throw new Error(`stand-in: unknown reference ${reference}`);
    this.transactions.set(reference, { ...tx, ...patch });
  }

  /** A charge.success webhook body and its signature (or a wrong one). */
  webhook(reference: string, opts: { badSignature?: boolean; event?: string } = {}): { body: string; signature: string } {
    const tx = this.transactions.get(reference);
    const body = JSON.stringify({
      event: opts.event ?? 'charge.success',
      data: { id: 302961, domain: 'test', channel: 'card', paid_at: new Date().toISOString(), customer: { email: 'x@example.com' }, ...tx },
    });
    const key = opts.badSignature ? `${this.secret}-wrong` : this.secret;
    return { body, signature: createHmac('sha512', key).update(body).digest('hex') };
  }

  private send(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (this.failWith) return this.send(res, this.failWith, { status: false, message: 'Service unavailable' });
    if (req.headers.authorization !== `Bearer ${this.secret}`) return this.send(res, 401, { status: false, message: 'Invalid key' });
    const url = req.url ?? '';
    if (req.method === 'POST' && url === '/transaction/initialize') {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as InitializeCall['body'];
      this.initializeCalls.push({ authorization: req.headers.authorization, body });
      if (this.transactions.has(body.reference)) return this.send(res, 400, { status: false, message: 'Duplicate Transaction Reference' });
      this.transactions.set(body.reference, {
        reference: body.reference,
        status: 'abandoned',
        amount: Number(body.amount),
        currency: body.currency,
        gateway_response: 'The transaction was not completed',
      });
      const code = Math.random().toString(36).slice(2, 12);
      return this.send(res, 200, {
        status: true,
        message: 'Authorization URL created',
        data: { authorization_url: `https://checkout.paystack.com/${code}`, access_code: code, reference: body.reference },
      });
    }
    const verify = /^\/transaction\/verify\/([^/?]+)$/.exec(url);
    if (req.method === 'GET' && verify) {
      const reference = decodeURIComponent(verify[1]!);
      this.verifyCalls.push(reference);
      const tx = this.transactions.get(reference);
      if (!tx) return this.send(res, 400, { status: false, message: 'Transaction reference not found' });
      return this.send(res, 200, { status: true, message: 'Verification successful', data: { id: 302961, ...tx, paid_at: null } });
    }
    return this.send(res, 404, { status: false, message: 'Not found' });
  }
}
