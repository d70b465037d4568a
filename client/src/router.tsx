import { createRootRoute, createRoute, createRouter, Outlet } from '@tanstack/react-router';

// The console's screens arrive with the console issue; this shell proves the build and routing.
const rootRoute = createRootRoute({ component: () => <Outlet /> });

const home = createRoute({
  getParentRoute: () => rootRoute,
  path: '/',
  component: () => (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 640, margin: '4rem auto', padding: '0 1rem' }}>
      <h1>Parley</h1>
      <p>Live chat and visitor management for your website. Free trial: 14 days, no credit card.</p>
      <p>
        The API is running: see <a href="/api/openapi.json">/api/openapi.json</a>.
      </p>
      <a href="/features">Features</a>
    </main>
  ),
});

const placeholder = (path: string, title: string) =>
  createRoute({ getParentRoute: () => rootRoute, path, component: () => <h1>{title}</h1> });

const routeTree = rootRoute.addChildren([
  home,
  placeholder('/features', 'Features Page'),
  placeholder('/pricing', 'Pricing Page'),
  placeholder('/testimonials', 'Testimonials Page'),
]);

export const router = createRouter({ routeTree });

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
