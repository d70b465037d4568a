import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiCall, base, createVisitor, integrationSnippet, login, type Owner, PASSWORD, registerOwner, uniqueEmail, visitorSays } from '../support/api';
import { describeViolations, seriousViolations } from '../support/axe';
import { closeBrowser, newSession, type Session, visible } from '../support/browser';

/**
 * Accessibility (issue 4): axe-core on every screen of SPEC.md section 2, public and signed in,
 * plus the main dialogs and sub-states; no violation of impact serious or critical.
 */
interface Screen {
  name: string;
  path: string;
  signedIn: boolean;
  /** Text that shows the screen has rendered its content. */
  ready: string | RegExp;
  /** Optional step after load (open a dialog, a detail view ...). */
  open?: (page: Page) => Promise<void>;
}

const SCREENS: Screen[] = [
  { name: 'landing', path: '/', signedIn: false, ready: /Start Free Trial/ },
  { name: 'register', path: '/register', signedIn: false, ready: 'Create your account' },
  { name: 'login', path: '/login', signedIn: false, ready: 'Sign in to your account to continue.' },
  { name: 'terms', path: '/terms', signedIn: false, ready: 'Terms of Service' },
  { name: 'privacy', path: '/privacy', signedIn: false, ready: 'Privacy Policy' },
  { name: 'features placeholder', path: '/features', signedIn: false, ready: 'Features Page' },
  { name: 'pricing placeholder', path: '/pricing', signedIn: false, ready: 'Pricing Page' },
  { name: 'testimonials placeholder', path: '/testimonials', signedIn: false, ready: 'Testimonials Page' },
  { name: 'dashboard', path: '/dashboard', signedIn: true, ready: 'Visitor History' },
  { name: 'message center', path: '/conversations', signedIn: true, ready: 'Select a conversation' },
  {
    name: 'message center, conversation open',
    path: '/conversations',
    signedIn: true,
    ready: 'Select a conversation',
    open: async (page) => {
      await page.getByRole('list', { name: 'Conversation list' }).getByRole('button', { name: /Alex Axe/ }).click();
      await visible(page.getByRole('log', { name: 'Messages' }).getByText('Hello from the accessibility check'));
    },
  },
  { name: 'visitors', path: '/visitors', signedIn: true, ready: 'Total Visitors' },
  {
    name: 'visitors, details dialog',
    path: '/visitors',
    signedIn: true,
    ready: 'Total Visitors',
    open: async (page) => {
      await page.getByRole('button', { name: 'View Details of Alex Axe' }).click();
      await visible(page.getByRole('dialog', { name: 'Visitor Details' }));
    },
  },
  { name: 'chatbot', path: '/chatbots', signedIn: true, ready: 'Neural AI Chatbot' },
  { name: 'integration', path: '/integrations', signedIn: true, ready: 'Chat Widget Script' },
  { name: 'team', path: '/team', signedIn: true, ready: 'Andy Axe' },
  {
    name: 'team, add member dialog',
    path: '/team',
    signedIn: true,
    ready: 'Andy Axe',
    open: async (page) => {
      await page.getByRole('button', { name: 'Add Member' }).click();
      await visible(page.getByRole('dialog', { name: 'Add Team Member' }));
    },
  },
  { name: 'documentation', path: '/documentation', signedIn: true, ready: 'Getting Started' },
  { name: 'subscription', path: '/subscription', signedIn: true, ready: 'MOST POPULAR' },
  {
    name: 'subscription, plan detail',
    path: '/subscription',
    signedIn: true,
    ready: 'MOST POPULAR',
    open: async (page) => {
      await page.getByRole('button', { name: /^Get Started/ }).click();
      await visible(page.getByRole('button', { name: 'Continue to Payment' }));
    },
  },
  { name: 'settings', path: '/settings', signedIn: true, ready: 'Save Widget Settings' },
  {
    name: 'settings, delete dialog',
    path: '/settings',
    signedIn: true,
    ready: 'Save Widget Settings',
    open: async (page) => {
      await page.getByRole('button', { name: 'Delete Account' }).click();
      await visible(page.getByRole('dialog', { name: 'Delete account?' }));
    },
  },
  { name: 'onboarding 1 (widget settings)', path: '/widget-settings', signedIn: true, ready: 'Customize your widget' },
  { name: 'onboarding 2 (greetings)', path: '/greetings', signedIn: true, ready: 'Proactive greetings' },
  { name: 'onboarding 3 (account info)', path: '/account-info', signedIn: true, ready: 'Account information' },
];

let owner: Owner;
let snippet: string;
let guest: Session;
let member: Session;

beforeAll(async () => {
  owner = await registerOwner('Axel Accessible');
  const { key, script } = await integrationSnippet(owner.token);
  snippet = script;
  const visitor = await createVisitor(key, { name: 'Alex Axe', email: 'alex@example.com' }, '8.8.8.8');
  await visitorSays(visitor, 'Hello from the accessibility check');
  const team = await apiCall<{ roles: { id: number; name: string }[] }>('GET', '/api/vms/team', { token: owner.token });
  const agentRole = team.body.roles.find((r) => r.name === 'Agent')!;
  await apiCall('POST', '/api/vms/team', { token: owner.token, body: { name: 'Andy Axe', email: uniqueEmail('axe-agent'), password: PASSWORD, role_id: agentRole.id } });
  await apiCall('POST', '/api/chatbot/message', { token: owner.token, body: { message: 'What are your opening hours?' } });
  guest = await newSession();
  member = await newSession({ token: owner.token });
});

afterAll(async () => {
  await guest?.context.close();
  await member?.context.close();
  await closeBrowser();
});

describe('accessibility (journey 10): no serious or critical axe violation', () => {
  it.each(SCREENS.map((s) => [s.name, s] as const))('%s', async (_name, screen) => {
    const { page } = screen.signedIn ? member : guest;
    await page.goto(`${base()}${screen.path}`);
    await visible(page.getByText(screen.ready).first(), 15_000);
    await page.waitForLoadState('networkidle').catch(() => undefined);
    if (screen.open) await screen.open(page);
    // Let entrance transitions finish so colours are measured at rest.
    await page.waitForTimeout(400);
    const violations = await seriousViolations(page);
    // The rule id, element and HTML of each violation, so a failure says exactly what to fix.
    if (violations.length > 0) throw new Error(`${violations.length} serious/critical axe violation(s):\n${describeViolations(screen.name, violations)}`);
    expect(violations).toEqual([]);
  });
});

describe("accessibility of an Agent's read-only settings", () => {
  it('the read-only notices and disabled forms have no serious or critical violation', async () => {
    const team = await apiCall<{ roles: { id: number; name: string }[] }>('GET', '/api/vms/team', { token: owner.token });
    const email = uniqueEmail('axe-readonly');
    await apiCall('POST', '/api/vms/team', { token: owner.token, body: { name: 'Rita Readonly', email, password: PASSWORD, role_id: team.body.roles.find((r) => r.name === 'Agent')!.id } });
    const { page, context } = await newSession({ token: await login(email, PASSWORD) });
    await page.goto(`${base()}/settings`);
    await visible(page.getByText('Only the account owner or an Admin can change these settings.').first(), 15_000);
    await visible(page.getByLabel('Website URL', { exact: true }));
    await page.waitForTimeout(400);
    const violations = await seriousViolations(page);
    if (violations.length > 0) throw new Error(`${violations.length} serious/critical axe violation(s):\n${describeViolations('agent settings', violations)}`);
    expect(violations).toEqual([]);
    await context.close();
  });
});

describe('accessibility of the widget on a customer page', () => {
  it('the open widget panel (default colour) has no serious or critical violation', async () => {
    fs.writeFileSync(path.join(inject('hostDir'), 'a11y.html'), `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><main><h1>Shop</h1></main>\n${snippet}\n</body></html>\n`);
    const { page, context } = await newSession();
    await page.goto(`${inject('hostUrl')}/a11y.html`);
    await page.getByRole('button', { name: 'Open chat' }).click();
    await visible(page.getByRole('dialog').getByRole('textbox'), 15_000);
    await page.waitForTimeout(400);
    const violations = await seriousViolations(page);
    await context.close();
    if (violations.length > 0) throw new Error(`${violations.length} serious/critical axe violation(s):\n${describeViolations('widget panel', violations)}`);
    expect(violations).toEqual([]);
  });
});
