import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
// Evaluated through the DevTools protocol, which the console's strict CSP (no inline scripts) does not block.
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeNode {
  target: string[];
  html: string;
  failureSummary?: string;
}
export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: AxeNode[];
}

/** Runs axe-core (WCAG 2 A/AA and best practices) on the page; returns the serious and critical violations. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: unknown[] }> } }).axe;
    const res = await axe.run(document, { resultTypes: ['violations'] });
    return res.violations as AxeViolation[];
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** One line per violation and element: rule id, impact, selector, the element's HTML, axe's summary. */
export function describeViolations(screen: string, violations: AxeViolation[]): string {
  return violations
    .flatMap((v) =>
      v.nodes.map((n) => `[${screen}] ${v.id} (${v.impact}): ${v.help}\n    element: ${n.target.join(' ')}\n    html: ${n.html.slice(0, 200)}\n    ${(n.failureSummary ?? '').replace(/\n/g, ' ')}`),
    )
    .join('\n');
}
