import { Link } from '@tanstack/react-router';
import '../components/integration/docs.css';
import { PageHeader } from '../components/layout/PageHeader';
import { API_KEY_SCOPE_LABELS, API_KEY_SCOPES, WEBHOOK_EVENTS } from '@parley/shared';
import { CURL_EXAMPLES, DELIVERY_SAMPLE, VERIFY_EXAMPLE } from '../components/integrations/apiExamples';
import { payloadTypes, socketEvents } from '../components/integrations/socketEvents';

const SECTIONS = [
  { id: 'getting-started', title: 'Getting Started' },
  { id: 'api', title: 'API Documentation' },
  { id: 'api-keys', title: 'API keys and webhooks' },
  { id: 'socket-events', title: 'Live events' },
  { id: 'features', title: 'Features' },
  { id: 'support', title: 'Support' },
];

const SETTINGS_SAMPLE = `{
  "message": "success",
  "data": {
    "name": "Support Team",
    "title": "We're here to help",
    "color": "#667eea",
    "avatar_url": "/storage/…/avatar.png",
    "initial_greeting": "Hello! How can we assist you today?",
    "follow_up_greeting": "Feel free to ask any questions!",
    "agent_online": true,
    "powered_by": "Powered by Parley"
  }
}`;

/** Static documentation (SPEC.md section 2 "Documentation"). */
export default function Documentation() {
  return (
    <div className="docs">
      <PageHeader title="Documentation" subtitle="Everything you need to install the widget and get the most out of Parley." />
      <nav aria-label="Documentation sections">
        <ul className="docs-toc">
          {SECTIONS.map((s) => (
            <li key={s.id}>
              <a href={`#${s.id}`}>{s.title}</a>
            </li>
          ))}
        </ul>
      </nav>

      <section className="docs-section" id="getting-started" aria-labelledby="docs-getting-started">
        <h2 id="docs-getting-started">Getting Started</h2>
        <ol>
          <li>
            <b>Customize your widget.</b> Choose the name, title, color and avatar your visitors will see, then set your greetings —
            the <Link to="/widget-settings">onboarding wizard</Link> and <Link to="/settings">Settings</Link> both do this.
          </li>
          <li>
            <b>Copy your script.</b> Open <Link to="/integrations">Integrations</Link> and press “Copy Script”.
          </li>
          <li>
            <b>Paste it before the closing <code>&lt;/body&gt;</code> tag</b> of every page where the chat should appear.
          </li>
          <li>
            <b>Go live.</b> Visitors appear in <Link to="/visitors">Visitors</Link> and their messages in{' '}
            <Link to="/conversations">Conversations</Link> as soon as the page loads.
          </li>
        </ol>
        <p>The script looks like this (yours carries your own widget key):</p>
        <pre className="docs-code">
          <code>{'<script src="https://your-parley-host/widget.js" data-widget="YOUR_WIDGET_KEY" async></script>'}</code>
        </pre>
      </section>

      <section className="docs-section" id="api" aria-labelledby="docs-api">
        <h2 id="docs-api">API Documentation</h2>
        <p>
          Every answer is JSON. Console calls carry your session token as <code>Authorization: Bearer &lt;token&gt;</code>; successful
          answers have <code>"message": "success"</code> and a <code>data</code> field. Errors carry <code>message</code>,{' '}
          <code>error</code> and, for validation, an <code>errors</code> object keyed by field.
        </p>

        <div className="docs-endpoint">
          <span className="docs-method get">GET</span>
          <code>/api/widget-settings?unique_code=YOUR_WIDGET_KEY</code>
        </div>
        <p>
          Public (no token). Returns the look of the widget identified by its <code>unique_code</code> query parameter: name, title,
          color, avatar URL, greetings and whether an agent is online. The widget itself calls it on every page load.
        </p>
        <pre className="docs-code">
          <code>{SETTINGS_SAMPLE}</code>
        </pre>

        <div className="docs-endpoint">
          <span className="docs-method post">POST</span>
          <code>/api/vms/widget-settings</code>
        </div>
        <p>
          Signed in. Updates the widget with a <code>multipart/form-data</code> body: <code>name</code>, <code>color</code> (hex, e.g.{' '}
          <code>#667eea</code>), an optional <code>avatar</code> image (PNG, JPEG, GIF or WebP, at most 2 MB) and{' '}
          <code>email_notifications</code> as a JSON string such as{' '}
          <code>{'{"newChats":true,"offlineMessages":true,"missedChats":false}'}</code>. An optional{' '}
          <code>hide_branding</code> (<code>true</code> or <code>false</code>) removes the widget&apos;s &quot;Powered by Parley&quot; credit; it needs the
          Professional plan or its trial.
        </p>
        <pre className="docs-code">
          <code>{`curl -X POST https://your-parley-host/api/vms/widget-settings \\
  -H "Authorization: Bearer YOUR_TOKEN" \\
  -F name="Support Team" -F color="#667eea" \\
  -F avatar=@avatar.png \\
  -F email_notifications='{"newChats":true,"offlineMessages":true,"missedChats":true}'`}</code>
        </pre>
        <p>
          The full machine-readable description of the API is served at <a href="/api/openapi.json">/api/openapi.json</a>.
        </p>
      </section>

      <section className="docs-section" id="api-keys" aria-labelledby="docs-api-keys">
        <h2 id="docs-api-keys">API keys and webhooks</h2>
        <p>
          For your own code (a CRM sync, a helpdesk, an automation), the owner or an Admin creates an API key in{' '}
          <Link to="/api-access">API &amp; Webhooks</Link>. Send it as <code>Authorization: Bearer YOUR_API_KEY</code> to the same calls
          the console makes. A key acts as the person who created it, limited to its scopes, and stops working when it is revoked or
          that person leaves the team. Each key may make 600 calls a minute; past that the answer is <code>429</code> with a{' '}
          <code>Retry-After</code> header. A call outside the key&apos;s scopes answers <code>403</code>.
        </p>
        <ul>
          {API_KEY_SCOPES.map((s) => (
            <li key={s}>
              <code>{s}</code> — {API_KEY_SCOPE_LABELS[s]}
            </li>
          ))}
        </ul>
        {CURL_EXAMPLES.map((ex) => (
          <div key={ex.title}>
            <h3>
              {ex.title} <small>(scope <code>{ex.scope}</code>, answers {ex.status})</small>
            </h3>
            <pre className="docs-code">
              <code>{ex.command}</code>
            </pre>
          </div>
        ))}
        <h3>Webhooks</h3>
        <p>
          Register an HTTPS endpoint and choose its events: {WEBHOOK_EVENTS.map((e, i) => (
            <span key={e}>
              {i > 0 && ', '}
              <code>{e}</code>
            </span>
          ))}
          . Parley POSTs one JSON event per request and expects a <code>2xx</code> answer within 10 seconds; otherwise it retries
          with growing waits (30 s, 1 min, 2 min… 8 attempts). One conversation&apos;s events arrive in order. An endpoint that keeps
          failing for a day is paused and the owner is emailed; resume it on the same screen, where the delivery log shows each
          attempt and can resend any event. Use <code>Parley-Webhook-Id</code> to ignore an event you already handled.
        </p>
        <pre className="docs-code">
          <code>{DELIVERY_SAMPLE}</code>
        </pre>
        <p>
          Check every delivery&apos;s signature with the endpoint&apos;s signing secret: an HMAC-SHA256 of the timestamp, a dot and
          the raw body, in hex, after <code>v1=</code>.
        </p>
        <pre className="docs-code">
          <code>{VERIFY_EXAMPLE}</code>
        </pre>
      </section>

      <section className="docs-section" id="socket-events" aria-labelledby="docs-socket-events">
        <h2 id="docs-socket-events">Live events (Socket.IO)</h2>
        <p>
          The console connects with <code>io(YOUR_PARLEY_HOST, {'{'} auth: {'{'} token {'}'} {'}'})</code> using a session token (API keys
          use the REST calls and webhooks). Events, as defined in <code>shared/src/events.ts</code>:
        </p>
        <div className="table-wrap">
        <table className="table" aria-label="Socket events">
          <thead>
            <tr>
              <th>Event</th>
              <th>Direction and payload</th>
            </tr>
          </thead>
          <tbody>
            {socketEvents().map((e) => (
              <tr key={e.name}>
                <td>
                  <code>{e.name}</code>
                </td>
                <td>{e.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
        <pre className="docs-code">
          <code>{payloadTypes().join('\n\n')}</code>
        </pre>
      </section>

      <section className="docs-section" id="features" aria-labelledby="docs-features">
        <h2 id="docs-features">Features</h2>
        <ul className="docs-grid">
          <li><b>Real-time chat</b>Messages, images and typing indicators arrive instantly in the message center.</li>
          <li><b>Visitor management</b>See each visitor&apos;s name, email, country, IP address and when they visited.</li>
          <li><b>Neural AI Chatbot</b>An assistant that learns from your replies, with confidence scores and feedback.</li>
          <li><b>Analytics</b>Live visitor and chat figures on the dashboard and widget usage on the integration page.</li>
          <li><b>Team management</b>Invite members, give them roles and assign visitors to them.</li>
          <li><b>50+ languages</b>The widget follows each visitor&apos;s browser language.</li>
        </ul>
      </section>

      <section className="docs-section" id="support" aria-labelledby="docs-support">
        <h2 id="docs-support">Support</h2>
        <p>
          Stuck? Check that the script sits before <code>&lt;/body&gt;</code> and that the page is served over HTTPS, then look at the
          “Integration Status” chart on the <Link to="/integrations">Integrations</Link> page: <b>Pending</b> means the script loaded
          but never connected, <b>Error</b> means the widget key was wrong or the connection failed.
        </p>
        <p>
          Still need help? Email <a href="mailto:support@parley.example">support@parley.example</a> — we answer within one business day,
          and Professional plans get priority support.
        </p>
      </section>
    </div>
  );
}
