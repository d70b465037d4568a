import { useCallback, useEffect, useState } from 'react';
import { WEBHOOK_EVENTS, type WebhookDeliveryDto, type WebhookEndpointDto, type WebhookEvent, webhookSchema } from '@parley/shared';
import { api, request, serverError } from '../../lib/api';
import { type FormErrors, useSubmit } from '../../lib/validate';
import { Banner, Button, TextField } from '../ui';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

/** Owner/Admin: webhook endpoints, their delivery log, resend, pause and resume. */
export function WebhooksCard() {
  const [endpoints, setEndpoints] = useState<WebhookEndpointDto[] | null>(null);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(['message.created']);
  const [fieldErrors, setFieldErrors] = useState<FormErrors>({});
  const { busy, error, setError, submit } = useSubmit(setFieldErrors);
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [log, setLog] = useState<WebhookDeliveryDto[]>([]);

  const load = useCallback(() => {
    api
      .getData<WebhookEndpointDto[]>('/api/vms/webhooks')
      .then(setEndpoints)
      .catch((e: unknown) => setError(serverError(e, 'Could not load your webhooks')));
  }, [setError]);
  useEffect(load, [load]);

  const loadLog = useCallback((id: string) => {
    api
      .getData<WebhookDeliveryDto[]>(`/api/vms/webhooks/${id}/deliveries`)
      .then(setLog)
      .catch((e: unknown) => setError(serverError(e, 'Could not load the delivery log')));
  }, [setError]);
  useEffect(() => {
    if (open) loadLog(open);
  }, [open, loadLog]);

  const create = async (e: React.FormEvent) => {
    e.preventDefault();
    const sent = await submit(
      webhookSchema,
      { url, events },
      async (input) => {
        const data = await api.postData<WebhookEndpointDto & { secret: string }>('/api/vms/webhooks', input);
        setCreated({ url: data.url, secret: data.secret });
      },
      'Could not add the endpoint',
    );
    if (!sent) return;
    setUrl('');
    load();
  };

  const act = async (what: () => Promise<unknown>, failure: string) => {
    setError('');
    try {
      await what();
      load();
      if (open) loadLog(open);
    } catch (err) {
      setError(serverError(err, failure));
    }
  };

  const toggle = (ev: WebhookEvent) => setEvents((cur) => (cur.includes(ev) ? cur.filter((x) => x !== ev) : [...cur, ev]));

  return (
    <section className="card" aria-labelledby="webhooks-title">
      <div className="card-header">
        <div>
          <h2 id="webhooks-title" className="card-title">Webhooks</h2>
          <p className="card-sub">Parley POSTs signed JSON to your HTTPS endpoint when these events happen; see Documentation &gt; API for the signature.</p>
        </div>
      </div>
      <div className="card-body">
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        {created && (
          <div className="banner banner-success" role="status">
            <p>Signing secret for {created.url}. Copy it now: it will not be shown again.</p>
            <input className="input secret-once" readOnly aria-label="Signing secret" value={created.secret} onFocus={(e) => e.currentTarget.select()} />{' '}
            <Button variant="ghost" size="sm" onClick={() => setCreated(null)}>
              Done
            </Button>
          </div>
        )}
        <form onSubmit={(e) => void create(e)} noValidate aria-label="Add a webhook endpoint">
          <TextField label="Endpoint URL" type="url" value={url} onChange={(e) => setUrl(e.target.value)} error={fieldErrors.url} placeholder="https://example.com/parley" />
          <fieldset className="field">
            <legend className="field-label">Events</legend>
            {WEBHOOK_EVENTS.map((ev) => (
              <label key={ev} className="checkbox">
                <input type="checkbox" checked={events.includes(ev)} onChange={() => toggle(ev)} /> <code>{ev}</code>
              </label>
            ))}
            {fieldErrors.events && <p className="field-error" role="alert">{fieldErrors.events}</p>}
          </fieldset>
          <Button type="submit" busy={busy}>
            Add endpoint
          </Button>
        </form>
        <ul className="webhook-list" aria-label="Webhook endpoints">
          {(endpoints ?? []).map((ep) => (
            <li key={ep.id}>
              <div>
                <strong>{ep.url}</strong> <span className="badge">{ep.status === 'paused' ? 'Paused' : 'Active'}</span>
                <p className="field-hint">
                  {ep.events.join(', ')}
                  {ep.failing_since && ` · failing since ${when(ep.failing_since)}`}
                </p>
              </div>
              <div className="row-actions">
                <Button variant="secondary" size="sm" onClick={() => setOpen(open === ep.id ? null : ep.id)} aria-expanded={open === ep.id}>
                  Delivery log
                </Button>
                <Button
                  variant="secondary"
                  size="sm"
                  onClick={() => void act(() => request('PATCH', `/api/vms/webhooks/${ep.id}`, { status: ep.status === 'paused' ? 'active' : 'paused' }), 'Could not change the endpoint')}
                >
                  {ep.status === 'paused' ? 'Resume' : 'Pause'}
                </Button>
                <Button
                  variant="danger"
                  size="sm"
                  aria-label={`Delete ${ep.url}`}
                  onClick={() => {
                    if (window.confirm(`Delete the endpoint ${ep.url} and its delivery log?`)) void act(() => api.delete(`/api/vms/webhooks/${ep.id}`), 'Could not delete the endpoint');
                  }}
                >
                  Delete
                </Button>
              </div>
              {open === ep.id && (
                <table className="table" aria-label={`Deliveries to ${ep.url}`}>
                  <thead>
                    <tr>
                      <th>Event</th>
                      <th>Status</th>
                      <th>Response</th>
                      <th>Attempts</th>
                      <th>Last attempt</th>
                      <th>
                        <span className="sr-only">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {log.map((d) => (
                      <tr key={d.id}>
                        <td>
                          <code>{d.event}</code>
                        </td>
                        <td title={d.last_error ?? undefined}>{d.status}</td>
                        <td>{d.response_code ?? '—'}</td>
                        <td>{d.attempts}</td>
                        <td>{when(d.last_attempt_at)}</td>
                        <td>
                          <Button
                            variant="link"
                            size="sm"
                            onClick={() => void act(() => api.post(`/api/vms/webhooks/${ep.id}/deliveries/${d.id}/resend`), 'Could not resend')}
                          >
                            Resend
                          </Button>
                        </td>
                      </tr>
                    ))}
                    {log.length === 0 && (
                      <tr>
                        <td colSpan={6}>No deliveries yet.</td>
                      </tr>
                    )}
                  </tbody>
                </table>
              )}
            </li>
          ))}
          {endpoints?.length === 0 && <li>No endpoints yet.</li>}
        </ul>
      </div>
    </section>
  );
}
