import type { AiPassageDto, AiSourceDto } from '@parley/shared';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { POLL_MS, SOURCE_FILE_EXTENSIONS, fetchPassages, isBusy, useAiSources, validateSourceFile, validateSourceUrl } from '../../stores/aiSources';
import { errorText } from '../../lib/api';
import { Banner, Button, Dialog, Spinner, TextField } from '../ui';

const KIND: Record<AiSourceDto['kind'], string> = { website: 'Website', document: 'Document', faq: 'FAQ' };
const STATUS: Record<AiSourceDto['status'], string> = { queued: 'Queued', refreshing: 'Refreshing…', ready: 'Ready', failed: 'Failed' };
const n = (v: number) => v.toLocaleString('en-US');
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' }) : 'Never');

/**
 * Issue 17: the business's own knowledge for the assistant (Owner/Admin; the screen hides it from
 * Agents and the server refuses them): add a website or upload a document or FAQ file, see each
 * source's status, size, last refresh, error and what it answered; refresh, remove, read its passages.
 */
export function SourcesPanel() {
  const { status, error, sources, next, total, usage, load, loadMore, refreshList, addUrl, upload, refresh, remove } = useAiSources();
  const [url, setUrl] = useState('');
  const [urlError, setUrlError] = useState('');
  const [fileError, setFileError] = useState('');
  const [busy, setBusy] = useState<'url' | 'file' | null>(null);
  const [banner, setBanner] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const [removing, setRemoving] = useState<AiSourceDto | null>(null);
  const [reading, setReading] = useState<AiSourceDto | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    void load();
  }, [load]);

  // While a source is being read, its status and counts are read again every few seconds.
  const polling = sources.some(isBusy);
  useEffect(() => {
    if (!polling) return;
    const timer = window.setInterval(() => void refreshList(), POLL_MS);
    return () => window.clearInterval(timer);
  }, [polling, refreshList]);

  const submitUrl = async (e: FormEvent) => {
    e.preventDefault();
    const invalid = validateSourceUrl(url);
    setUrlError(invalid ?? '');
    if (invalid) return;
    setBusy('url');
    const failed = await addUrl(url);
    setBusy(null);
    if (failed) setUrlError(failed);
    else {
      setUrl('');
      setBanner({ kind: 'success', text: 'Website added. The assistant is reading it now.' });
    }
  };

  const chooseFile = async (file: File | null) => {
    if (fileRef.current) fileRef.current.value = '';
    const invalid = validateSourceFile(file);
    setFileError(invalid ?? '');
    if (invalid || !file) return;
    setBusy('file');
    const failed = await upload(file);
    setBusy(null);
    if (failed) setFileError(failed);
    else setBanner({ kind: 'success', text: `${file.name} uploaded. The assistant is reading it now.` });
  };

  const act = async (run: Promise<string | null>, done: string) => {
    const failed = await run;
    setBanner(failed ? { kind: 'error', text: failed } : { kind: 'success', text: done });
  };

  return (
    <section className="cb-panel cb-sources" id="cb-sources" aria-labelledby="cb-sources-title">
      <h2 id="cb-sources-title">Knowledge sources</h2>
      <p className="cb-muted">
        The assistant answers visitors from your website, documents and FAQ, and cites where each answer came from. Websites are read again every day.
      </p>
      {banner && (
        <Banner kind={banner.kind} onDismiss={() => setBanner(null)}>
          {banner.text}
        </Banner>
      )}
      <div className="cb-sources-add">
        <form onSubmit={(e) => void submitUrl(e)} noValidate className="cb-sources-url">
          <TextField
            label="Website address"
            placeholder="https://www.example.com"
            value={url}
            onChange={(e) => {
              setUrl(e.target.value);
              if (urlError) setUrlError('');
            }}
            error={urlError || undefined}
            inputMode="url"
            autoComplete="url"
          />
          <Button type="submit" busy={busy === 'url'}>
            Add website
          </Button>
        </form>
        <div className="cb-sources-file">
          <input
            ref={fileRef}
            id="cb-source-file"
            type="file"
            accept={SOURCE_FILE_EXTENSIONS.join(',')}
            className="cb-sr"
            aria-describedby="cb-source-file-hint"
            onChange={(e) => void chooseFile(e.target.files?.[0] ?? null)}
          />
          <Button variant="secondary" busy={busy === 'file'} onClick={() => fileRef.current?.click()}>
            Upload a document or FAQ
          </Button>
          <small id="cb-source-file-hint" className="cb-muted">
            PDF, Word (.docx), Markdown, text, or a CSV of question,answer. Up to 10 MB.
          </small>
          {fileError && (
            <p className="cb-field-error" role="alert">
              {fileError}
            </p>
          )}
        </div>
      </div>

      {status === 'loading' || status === 'idle' ? (
        <p role="status">
          <Spinner size="sm" /> Loading sources…
        </p>
      ) : status === 'error' ? (
        <div role="alert">
          <p>{error}</p>
          <Button variant="secondary" onClick={() => void load()}>
            Retry
          </Button>
        </div>
      ) : sources.length === 0 ? (
        <p className="cb-muted">No sources yet. Add your website or upload a document to get started.</p>
      ) : (
        <>
          <ul className="cb-sources-list" aria-label="Knowledge sources">
            {sources.map((s) => {
              const u = usage[s.id];
              return (
                <li key={s.id} className="cb-source">
                  <div className="cb-source-head">
                    <span className="cb-source-kind">{KIND[s.kind]}</span>
                    <b className="cb-source-name">{s.url ? <a href={s.url} target="_blank" rel="noopener noreferrer">{s.name}</a> : s.name}</b>
                    <span className={`cb-source-status ${s.status}`} role="status">
                      {STATUS[s.status]}
                    </span>
                  </div>
                  <p className="cb-source-facts">
                    {s.kind === 'website' && <>{n(s.page_count)} {s.page_count === 1 ? 'page' : 'pages'} · </>}
                    {n(s.passage_count)} {s.passage_count === 1 ? 'passage' : 'passages'} · Last refreshed: {when(s.last_refreshed_at)}
                  </p>
                  {u && (
                    <p className="cb-source-usage">
                      Answers given: {n(u.uses)} · Team feedback: {n(u.helpful)} helpful, {n(u.not_helpful)} not helpful · Visitors: {n(u.visitor_helpful)} helpful,{' '}
                      {n(u.visitor_not_helpful)} not helpful
                    </p>
                  )}
                  {s.error && <p className={s.status === 'failed' ? 'cb-field-error' : 'cb-muted'}>{s.error}</p>}
                  <div className="cb-source-actions">
                    <Button size="sm" variant="secondary" onClick={() => setReading(s)} disabled={s.passage_count === 0}>
                      View passages
                    </Button>
                    <Button size="sm" variant="secondary" onClick={() => void act(refresh(s.id), `${s.name} is being refreshed.`)} disabled={isBusy(s)}>
                      Refresh
                    </Button>
                    <Button size="sm" variant="secondary" onClick={() => setRemoving(s)}>
                      Remove
                    </Button>
                  </div>
                </li>
              );
            })}
          </ul>
          <p className="cb-muted">
            Showing {n(sources.length)} of {n(total)}
          </p>
          {next && (
            <Button variant="secondary" onClick={() => void loadMore()}>
              Load more sources
            </Button>
          )}
        </>
      )}

      <Dialog
        open={removing !== null}
        title="Remove this source?"
        size="sm"
        onClose={() => setRemoving(null)}
        footer={
          <>
            <Button variant="secondary" onClick={() => setRemoving(null)}>
              Cancel
            </Button>
            <Button
              variant="danger"
              onClick={() => {
                const s = removing;
                setRemoving(null);
                if (s) void act(remove(s.id), `${s.name} removed.`);
              }}
            >
              Remove source
            </Button>
          </>
        }
      >
        <p>The assistant forgets everything it learned from {removing?.name}. Answers it gave keep their text but lose the citation.</p>
      </Dialog>
      {reading && <PassagesDialog source={reading} onClose={() => setReading(null)} />}
    </section>
  );
}

/** A source's passages, paged: what the assistant may cite, with how each one did. */
function PassagesDialog({ source, onClose }: { source: AiSourceDto; onClose: () => void }) {
  const [rows, setRows] = useState<AiPassageDto[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'error'>('loading');
  const [error, setError] = useState('');

  const page = async (cursor: string | null) => {
    setState('loading');
    try {
      const p = await fetchPassages(source.id, cursor);
      setRows((r) => (cursor ? [...r, ...p.data] : p.data));
      setNext(p.next);
      setState('ready');
    } catch (e) {
      setError(errorText(e, 'Could not load the passages.'));
      setState('error');
    }
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: the first page, once per source
  useEffect(() => {
    void page(null);
  }, [source.id]);

  return (
    <Dialog open title={`Passages of ${source.name}`} size="lg" onClose={onClose}>
      <ol className="cb-passages" aria-label="Passages">
        {rows.map((p) => (
          <li key={p.id}>
            <b>{p.question ?? (p.heading || p.title)}</b>
            {p.url && (
              <a href={p.url} target="_blank" rel="noopener noreferrer" className="cb-passage-url">
                {p.title}
              </a>
            )}
            <p>{p.text}</p>
            <small className="cb-muted">
              Answers given: {n(p.uses)} · {n(p.helpful)} helpful · {n(p.not_helpful)} not helpful
            </small>
          </li>
        ))}
      </ol>
      {state === 'loading' && (
        <p role="status">
          <Spinner size="sm" /> Loading passages…
        </p>
      )}
      {state === 'error' && <p role="alert">{error}</p>}
      {state === 'ready' && next && (
        <Button variant="secondary" onClick={() => void page(next)}>
          Load more passages
        </Button>
      )}
    </Dialog>
  );
}
