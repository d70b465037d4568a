import { AVATAR_MAX_BYTES, AVATAR_TOO_LARGE, DEFAULT_WIDGET_COLOR, widgetSettingsSchema } from '@parley/shared';
import { type ChangeEvent, type FormEvent, useEffect, useRef, useState } from 'react';
import { storageUrl, serverError } from '../../lib/api';
import { PRIMARY_SWATCHES, SETTINGS_MORE_SWATCHES, type Swatch, swatchFor } from '../../lib/palettes';
import { canRemoveBranding } from '../../lib/plan';
import { type FormErrors, validate } from '../../lib/validate';
import { useAuth, useCan } from '../../stores/auth';
import { ReadOnlyNotice } from './ReadOnlyNotice';
import { useSettings } from '../../stores/settings';
import { Icon } from '../icons';
import { Banner, Button, Dialog, Spinner, TextField, Toggle } from '../ui';

type Notifications = { newChats: boolean; offlineMessages: boolean; missedChats: boolean };

function SwatchButton({ s, selected, onPick }: { s: Swatch; selected: boolean; onPick: (c: string) => void }) {
  return <button type="button" className="swatch" style={{ background: s.gradient }} aria-label={`${s.name} ${s.color}`} aria-pressed={selected} onClick={() => onPick(s.color)} />;
}

/**
 * Widget settings card: name, title, colour (5 swatches + 'more' dialog), avatar (2 MB), three
 * toggles, branding. Read only (no Save) for a user without 'settings.write' (an Agent).
 */
export function WidgetSettingsForm() {
  const { loadWidget, saveWidget } = useSettings();
  const canWrite = useCan('settings.write');
  const brandingAllowed = canRemoveBranding(useAuth((s) => s.user));
  const [loading, setLoading] = useState(true);
  const [name, setName] = useState('');
  const [title, setTitle] = useState('');
  // As stored: the title is sent only when edited (a new account has none until the wizard sets it).
  const [savedTitle, setSavedTitle] = useState('');
  const [color, setColor] = useState(DEFAULT_WIDGET_COLOR);
  const [notif, setNotif] = useState<Notifications>({ newChats: true, offlineMessages: true, missedChats: true });
  const [hideBranding, setHideBranding] = useState(false);
  // As stored: the choice is sent only when changed, so other edits still save after a plan ran out.
  const [savedHideBranding, setSavedHideBranding] = useState(false);
  const [avatarUrl, setAvatarUrl] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [filePreview, setFilePreview] = useState('');
  const [paletteOpen, setPaletteOpen] = useState(false);
  const [errors, setErrors] = useState<FormErrors>({});
  const [success, setSuccess] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    let live = true;
    loadWidget()
      .then((w) => {
        if (!live) return;
        setName(w.name ?? '');
        setTitle(w.title ?? '');
        setSavedTitle(w.title ?? '');
        setColor(swatchFor(w.color, [...PRIMARY_SWATCHES, ...SETTINGS_MORE_SWATCHES]).color);
        setNotif({ newChats: w.email_notifications?.newChats ?? true, offlineMessages: w.email_notifications?.offlineMessages ?? true, missedChats: w.email_notifications?.missedChats ?? true });
        setAvatarUrl(w.avatar_url || storageUrl(w.avatar));
        setHideBranding(w.hide_branding === true);
        setSavedHideBranding(w.hide_branding === true);
      })
      .catch((e) => {
        console.error('Failed to fetch widget settings', e);
        if (live) setError('Failed to fetch widget settings');
      })
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [loadWidget]);

  useEffect(() => {
    if (!file) return setFilePreview('');
    const url = URL.createObjectURL(file);
    setFilePreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);

  const onFile = (e: ChangeEvent<HTMLInputElement>) => {
    const f = e.target.files?.[0];
    e.target.value = '';
    if (!f) return;
    if (!f.type.startsWith('image/')) {
      window.alert('Please select an image file');
      return;
    }
    if (f.size > AVATAR_MAX_BYTES) {
      window.alert(AVATAR_TOO_LARGE);
      return;
    }
    setFile(f);
  };

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    setSuccess('');
    setError('');
    const res = validate(widgetSettingsSchema, { name, color, ...(title !== savedTitle ? { title } : {}) });
    if (!res.ok) return setErrors(res.errors);
    setBusy(true);
    try {
      const changed = hideBranding !== savedHideBranding;
      const w = await saveWidget({ name: res.data.name, title: res.data.title, color: res.data.color, email_notifications: notif, avatar: file, ...(changed ? { hide_branding: hideBranding } : {}) });
      setFile(null);
      if (res.data.title !== undefined) setSavedTitle(res.data.title);
      if (typeof w?.hide_branding === 'boolean') {
        setHideBranding(w.hide_branding);
        setSavedHideBranding(w.hide_branding);
      }
      if (w?.avatar_url || w?.avatar) setAvatarUrl(w.avatar_url || storageUrl(w.avatar));
      setSuccess('Widget settings updated successfully');
    } catch (err) {
      setError(serverError(err, 'Failed to update widget settings'));
    } finally {
      setBusy(false);
    }
  };

  const current = swatchFor(color);
  const inMore = SETTINGS_MORE_SWATCHES.some((s) => s.color === color);

  return (
    <section className="card" aria-labelledby="widget-settings-title">
      <div className="card-header">
        <div>
          <h2 id="widget-settings-title" className="card-title">Widget Settings</h2>
          <p className="card-sub">How the chat widget looks on your website</p>
        </div>
      </div>
      <div className="card-body">
        {success && <Banner kind="success" onDismiss={() => setSuccess('')}>{success}</Banner>}
        {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
        {loading ? (
          <div className="loading-block"><Spinner /><p>Loading settings...</p></div>
        ) : (
          <form onSubmit={onSubmit} noValidate aria-label="Widget settings">
            {!canWrite && <ReadOnlyNotice />}
            {/* A disabled fieldset makes every control inside read only. */}
            <fieldset className="plain-fieldset" disabled={!canWrite}>
            <TextField label="Widget name" name="widget_name" value={name} error={errors.name} onChange={(e) => { setName(e.target.value); setErrors((x) => ({ ...x, name: undefined })); }} />
            <TextField label="Title or department" name="widget_title" value={title} error={errors.title} placeholder="We're here to help" onChange={(e) => { setTitle(e.target.value); setErrors((x) => ({ ...x, title: undefined })); }} />
            <fieldset className="field" style={{ border: 'none', padding: 0, margin: '0 0 16px' }}>
              <legend className="field-label" style={{ marginBottom: 8 }}>Widget color</legend>
              <div className="swatches">
                {PRIMARY_SWATCHES.map((s) => <SwatchButton key={s.color} s={s} selected={color === s.color} onPick={setColor} />)}
                {inMore && <SwatchButton s={current} selected onPick={setColor} />}
                <button type="button" className="swatch swatch-more" aria-label="More colors" onClick={() => setPaletteOpen(true)}>+</button>
              </div>
              <div className="preview-chip" style={{ background: current.gradient, marginTop: 12 }}>
                <Icon.chat /> {name || 'Your widget'} · {current.color}
              </div>
              {errors.color && <div className="field-error" role="alert">{errors.color}</div>}
            </fieldset>
            <div className="field">
              <span className="field-label" id="avatar-label">Avatar</span>
              <div className="avatar-upload">
                {filePreview || avatarUrl ? (
                  <img className="avatar-preview" src={filePreview || avatarUrl} alt="Widget avatar" />
                ) : (
                  <span className="avatar avatar-lg avatar-brand" aria-hidden="true">{(name || 'P').charAt(0).toUpperCase()}</span>
                )}
                <input ref={fileInput} type="file" accept="image/*" className="sr-only" tabIndex={-1} aria-hidden="true" onChange={onFile} data-testid="avatar-input" />
                {canWrite && (
                  <Button variant="secondary" size="sm" aria-describedby="avatar-label avatar-hint" onClick={() => fileInput.current?.click()}>
                    {file ? 'Change image' : 'Upload avatar'}
                  </Button>
                )}
                {file && <Button variant="ghost" size="sm" onClick={() => setFile(null)}>Remove</Button>}
              </div>
              <div className="field-hint" id="avatar-hint">PNG, JPEG, GIF or WebP, up to 2MB.</div>
            </div>
            <fieldset style={{ border: 'none', padding: 0, margin: '8px 0 0' }}>
              <legend className="field-label">Email notifications</legend>
              <Toggle label="New chats" description="Email me when a visitor starts a chat" checked={notif.newChats} onChange={(v) => setNotif((n) => ({ ...n, newChats: v }))} />
              <Toggle label="Offline messages" description="Email me messages left while no one is online" checked={notif.offlineMessages} onChange={(v) => setNotif((n) => ({ ...n, offlineMessages: v }))} />
              <Toggle label="Missed chats" description="Email me chats nobody answered" checked={notif.missedChats} onChange={(v) => setNotif((n) => ({ ...n, missedChats: v }))} />
            </fieldset>
            <fieldset style={{ border: 'none', padding: 0, margin: '8px 0 0' }}>
              <legend className="field-label">Branding</legend>
              <Toggle
                label="Remove 'Powered by Parley'"
                description={brandingAllowed ? 'Hide the credit at the bottom of the chat widget' : 'Needs the Professional plan'}
                checked={hideBranding}
                // On Starter it can still be switched off, never on (the server refuses that with 403).
                disabled={!brandingAllowed && !hideBranding}
                onChange={setHideBranding}
              />
            </fieldset>
            </fieldset>
            {canWrite && (
              <div className="form-actions">
                <Button type="submit" busy={busy}>{busy ? 'Saving...' : 'Save Widget Settings'}</Button>
              </div>
            )}
          </form>
        )}
      </div>
      <Dialog open={paletteOpen} title="Choose a color" onClose={() => setPaletteOpen(false)} size="sm" footer={<Button variant="secondary" onClick={() => setPaletteOpen(false)}>Done</Button>}>
        <div className="palette-grid">
          {SETTINGS_MORE_SWATCHES.map((s) => (
            <SwatchButton key={s.color} s={s} selected={color === s.color} onPick={(c) => { setColor(c); setPaletteOpen(false); }} />
          ))}
        </div>
      </Dialog>
    </section>
  );
}
