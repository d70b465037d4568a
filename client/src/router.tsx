import { RouteError } from './components/RouteError';
import { createRootRoute, createRoute, createRouter, lazyRouteComponent, Outlet } from '@tanstack/react-router';

/**
 * Every route of SPEC.md section 2. Each screen is its own lazily loaded chunk
 * (screens/<Name>.tsx, default export). Signed-in screens sit under the `app` layout route,
 * which waits for the auth check, redirects to /login without a user, and draws the sidebar.
 */
const rootRoute = createRootRoute({ component: () => <Outlet /> });

export const LAZY_TIMEOUT_MS = 120_000;

/** A lazily loaded screen; a chunk that has not arrived after 120 s fails into RouteError (Retry). */
const screen = (load: () => Promise<{ default: React.ComponentType }>) =>
  lazyRouteComponent(() =>
    Promise.race([
      load(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('Loading timed out')), LAZY_TIMEOUT_MS)),
    ]),
  );

const publicRoute = <P extends string>(path: P, load: () => Promise<{ default: React.ComponentType }>) =>
  createRoute({ getParentRoute: () => rootRoute, path, component: screen(load) });

const appLayout = createRoute({
  getParentRoute: () => rootRoute,
  id: 'app',
  component: screen(() => import('./components/layout/AppLayout')),
});
const appRoute = <P extends string>(path: P, load: () => Promise<{ default: React.ComponentType }>) =>
  createRoute({ getParentRoute: () => appLayout, path, component: screen(load) });

/** /conversations?visitor=<id> opens that visitor's conversation (Visitors' "Start Chat"). */
const conversationsRoute = createRoute({
  getParentRoute: () => appLayout,
  path: '/conversations',
  component: screen(() => import('./screens/Conversations')),
  validateSearch: (search: Record<string, unknown>): { visitor?: string } =>
    typeof search.visitor === 'string' && search.visitor ? { visitor: search.visitor } : {},
});

const routeTree = rootRoute.addChildren([
  publicRoute('/', () => import('./screens/Landing')),
  publicRoute('/register', () => import('./screens/Register')),
  publicRoute('/login', () => import('./screens/Login')),
  publicRoute('/terms', () => import('./screens/Terms')),
  publicRoute('/privacy', () => import('./screens/Privacy')),
  publicRoute('/features', () => import('./screens/FeaturesPage')),
  publicRoute('/pricing', () => import('./screens/PricingPage')),
  publicRoute('/testimonials', () => import('./screens/TestimonialsPage')),
  publicRoute('/forgot-password', () => import('./components/security/ForgotPassword')),
  publicRoute('/reset-password', () => import('./components/security/ResetPassword')),
  appLayout.addChildren([
    appRoute('/dashboard', () => import('./screens/Dashboard')),
    conversationsRoute,
    appRoute('/visitors', () => import('./screens/Visitors')),
    appRoute('/chatbots', () => import('./screens/Chatbot')),
    appRoute('/integrations', () => import('./screens/Integration')),
    appRoute('/team', () => import('./screens/Team')),
    appRoute('/documentation', () => import('./screens/Documentation')),
    appRoute('/api-access', () => import('./screens/ApiAccess')),
    appRoute('/subscription', () => import('./screens/Subscription')),
    appRoute('/settings', () => import('./screens/Settings')),
    appRoute('/settings/security', () => import('./components/security/SecurityPage')),
    appRoute('/widget-settings', () => import('./screens/onboarding/WidgetSettings')),
    appRoute('/greetings', () => import('./screens/onboarding/Greetings')),
    appRoute('/account-info', () => import('./screens/onboarding/AccountInfo')),
  ]),
]);

export const router = createRouter({ routeTree, defaultPendingMinMs: 0, defaultErrorComponent: RouteError });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
