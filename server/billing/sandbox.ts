/**
 * The offline sandbox provider (no PAYSTACK_SECRET_KEY): Parley itself serves the "provider's"
 * checkout page, where a person chooses Pay or Decline, and then sends the browser back to
 * /subscription?reference=... exactly as Paystack would. No money moves.
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { sandboxCharges } from '../db/schema.js';
import type { ChargeReport, InitializeInput, PaymentProvider } from './provider.js';
import { escapeHtml } from '../services/html.js';

export type SandboxCharge = typeof sandboxCharges.$inferSelect;

export const sandboxCheckoutPath = (reference: string) => `/api/payments/sandbox/checkout/${encodeURIComponent(reference)}`;

export class SandboxProvider implements PaymentProvider {
  readonly name = 'sandbox' as const;

  constructor(
    private readonly db: Db,
    private readonly publicBase: string,
  ) {}

  async initialize(input: InitializeInput): Promise<{ authorizationUrl: string }> {
    await this.db.insert(sandboxCharges).values({
      reference: input.reference,
      amount: input.amount,
      currency: input.currency,
      email: input.email,
    });
    return { authorizationUrl: `${this.publicBase}${sandboxCheckoutPath(input.reference)}` };
  }

  async verify(reference: string): Promise<ChargeReport | undefined> {
    const charge = await findSandboxCharge(this.db, reference);
    return charge ? reportOf(charge) : undefined;
  }
}

export function reportOf(charge: SandboxCharge): ChargeReport {
  return {
    reference: charge.reference,
    // A page left open without a choice is what Paystack calls abandoned.
    status: charge.status === 'pending' ? 'abandoned' : charge.status,
    amount: charge.amount,
    currency: charge.currency,
    gatewayResponse: charge.gatewayResponse || 'The transaction was not completed',
  };
}

export async function findSandboxCharge(db: Db, reference: string): Promise<SandboxCharge | undefined> {
  const [row] = await db.select().from(sandboxCharges).where(eq(sandboxCharges.reference, reference));
  return row;
}

/** The person's choice; only the first one counts (a second click or a replay changes nothing). */
export async function decideSandboxCharge(db: Db, reference: string, pay: boolean): Promise<SandboxCharge | undefined> {
  await db
    .update(sandboxCharges)
    .set(pay ? { status: 'success', gatewayResponse: 'Approved (sandbox)' } : { status: 'failed', gatewayResponse: 'Declined (sandbox)' })
    .where(and(eq(sandboxCharges.reference, reference), eq(sandboxCharges.status, 'pending')));
  return findSandboxCharge(db, reference);
}

/** The checkout page: plain HTML, no script, clearly marked as a sandbox. */
export function sandboxCheckoutHtml(input: { reference: string; planName: string; amount: number; currency: string; email: string; decided: boolean }): string {
  const action = escapeHtml(sandboxCheckoutPath(input.reference));
  const price = `${(input.amount / 100).toFixed(2)} ${input.currency}`;
  const buttons = input.decided
    ? `<p class="note">This payment has already been completed or declined.</p>
       <form method="post" action="${action}/return"><button class="pay" type="submit">Return to Parley</button></form>`
    : `<form method="post" action="${action}/pay"><button class="pay" type="submit">Pay ${escapeHtml(price)}</button></form>
       <form method="post" action="${action}/decline"><button class="decline" type="submit">Decline</button></form>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>SANDBOX checkout - Parley</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f4f8;margin:0;padding:2rem 1rem;color:#222}
main{max-width:420px;margin:0 auto;background:#fff;border-radius:12px;padding:1.5rem;box-shadow:0 4px 20px rgba(0,0,0,.08)}
.banner{background:#fff3cd;border:2px dashed #d39e00;color:#7a5a00;font-weight:700;text-align:center;padding:.6rem;border-radius:8px;letter-spacing:.08em}
dl{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem}dt{color:#666}dd{margin:0;font-weight:600;word-break:break-all}
form{margin-top:.8rem}button{width:100%;padding:.8rem;border:0;border-radius:8px;font-size:1rem;cursor:pointer}
.pay{background:#667eea;color:#fff}.decline{background:#eee;color:#333}.note{color:#555}
</style>
</head>
<body>
<main>
<div class="banner">SANDBOX - TEST PAYMENT, NO MONEY IS TAKEN</div>
<h1>Parley checkout</h1>
<p>This page stands in for the card payment provider because no provider key is configured.</p>
<dl>
<dt>Plan</dt><dd>${escapeHtml(input.planName)}</dd>
<dt>Amount</dt><dd>${escapeHtml(price)}</dd>
<dt>Email</dt><dd>${escapeHtml(input.email)}</dd>
<dt>Reference</dt><dd>${escapeHtml(input.reference)}</dd>
</dl>
${buttons}
</main>
</body>
</html>`;
}
