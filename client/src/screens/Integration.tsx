import { Link } from '@tanstack/react-router';
import { lazy, Suspense } from 'react';
import '../components/integration/integration.css';
import { CopyScriptButton } from '../components/integration/CopyScript';
import { useIntegration } from '../components/integration/useIntegration';
import { PageHeader } from '../components/layout/PageHeader';
import { Spinner } from '../components/ui';

// echarts is heavy: its own chunk, fetched only when this screen renders the charts.
const IntegrationCharts = lazy(() => import('../components/integration/Charts'));

const BENEFITS = [
  { icon: '⚡', title: 'Live in minutes', text: 'One line of code, no build step and no plugin to maintain.' },
  { icon: '🪶', title: 'Featherweight', text: 'The loader is tiny and never blocks your page from rendering.' },
  { icon: '🛡️', title: 'Isolated and safe', text: 'The chat lives in its own shadow DOM, so your styles and ours never clash.' },
  { icon: '🌍', title: 'Speaks 50+ languages', text: 'Visitors see the widget in their browser language.' },
];

/** Integration Setup (SPEC.md section 2): the embeddable script plus usage analytics. */
export default function Integration() {
  const { script, loading, error, metrics } = useIntegration();

  return (
    <div className="int">
      <PageHeader title="Integration Setup" subtitle="Add the chat widget to your website in three simple steps." />

      <section className="int-card" aria-labelledby="int-steps-title">
        <h2 id="int-steps-title">How to install</h2>
        <ol className="int-steps">
          <li>
            <b>Copy the script</b>
            <p>Use the “Copy Script” button below to copy your personal widget code.</p>
          </li>
          <li>
            <b>Paste it into your site</b>
            <p>
              Paste it just before the closing <code>&lt;/body&gt;</code> tag on every page where the chat should appear.
            </p>
          </li>
          <li>
            <b>Go live</b>
            <p>Save and publish. The widget appears at once and visitors show up in your console.</p>
          </li>
        </ol>
      </section>

      <section className="int-card" aria-labelledby="int-script-title">
        <div className="int-script-head">
          <h2 id="int-script-title">Chat Widget Script</h2>
          <CopyScriptButton script={script} loading={loading} />
        </div>
        {loading ? (
          <p className="int-code" aria-busy="true">
            <Spinner size="sm" label="Loading script" /> Loading script...
          </p>
        ) : error ? (
          <div className="int-error" role="alert">
            <b>Error loading script</b>
            {error}
          </div>
        ) : (
          <pre className="int-code">
            <code>{script}</code>
          </pre>
        )}
      </section>

      <section aria-label="Integration analytics">
        {metrics ? (
          <Suspense fallback={<div className="int-card int-chart-placeholder">Loading charts...</div>}>
            <IntegrationCharts metrics={metrics} />
          </Suspense>
        ) : (
          <div className="int-card int-chart-placeholder">Loading analytics...</div>
        )}
      </section>

      <section aria-labelledby="int-benefits-title">
        <h2 id="int-benefits-title" className="int-sr">
          Benefits
        </h2>
        <ul className="int-benefits">
          {BENEFITS.map((b) => (
            <li key={b.title}>
              <span aria-hidden="true">{b.icon}</span>
              <b>{b.title}</b>
              <p>{b.text}</p>
            </li>
          ))}
        </ul>
      </section>

      <section className="int-card int-help" aria-labelledby="int-help-title">
        <div>
          <h2 id="int-help-title">Need More Help?</h2>
          <p>Step-by-step guides, the API reference and troubleshooting tips are in the documentation.</p>
        </div>
        <Link to="/documentation" className="int-link-btn">
          View Documentation
        </Link>
      </section>
    </div>
  );
}
