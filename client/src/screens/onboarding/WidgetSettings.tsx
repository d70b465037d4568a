import { AVATAR_MAX_BYTES, AVATAR_TOO_LARGE, NOT_AN_IMAGE, chatWidgetSettingsSchema } from '@parley/shared';
import { useNavigate } from '@tanstack/react-router';
import { type ChangeEvent, type FormEvent, useEffect, useState } from 'react';
import { ColorPicker } from '../../components/onboarding/ColorPicker';
import { OnboardingShell } from '../../components/onboarding/OnboardingShell';
import { useStepLoad } from '../../components/onboarding/useStepLoad';
import { Banner, Button, Spinner, TextField } from '../../components/ui';
import { ApiError } from '../../lib/api';
import { type FormErrors, firstErrors, validate } from '../../lib/validate';
import { ReadOnlyNotice } from '../../components/settings/ReadOnlyNotice';
import { useCan } from '../../stores/auth';
import { useOnboarding } from '../../stores/onboarding';

/** Onboarding step 1 (/widget-settings): name, avatar, title/department, color. */
export default function WidgetSettings() {
  const navigate = useNavigate();
  // Who may not write (an Agent) walks the steps read only: Next moves on without saving.
  const canWrite = useCan('settings.write');
  const { look, setLook, loadLook, saveLook } = useOnboarding();
  const { loading, error, setError } = useStepLoad(loadLook, 'Failed to load settings. Please try again.');
  const [errors, setErrors] = useState<FormErrors>({});
  const [avatar, setAvatar] = useState<File | null>(null);
  const [avatarPreview, setAvatarPreview] = useState('');
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (!avatar) return setAvatarPreview('');
    const url = URL.createObjectURL(avatar);
    setAvatarPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [avatar]);

  const edit = (field: 'name' | 'title') => (e: ChangeEvent<HTMLInputElement>) => {
    setLook({ [field]: e.target.value });
    if (errors[field]) setErrors((x) => ({ ...x, [field]: undefined }));
  };

  const pickAvatar = (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    if (!file.type.startsWith('image/')) return window.alert(NOT_AN_IMAGE);
    if (file.size > AVATAR_MAX_BYTES) return window.alert(AVATAR_TOO_LARGE);
    setAvatar(file);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!canWrite) return void navigate({ to: '/greetings' });
    const res = validate(chatWidgetSettingsSchema, { name: look.name, title: look.title, color: look.color });
    if (!res.ok) return setErrors(res.errors);
    setSaving(true);
    setError('');
    try {
      await saveLook(res.data, avatar);
      setAvatar(null);
      await navigate({ to: '/greetings' });
    } catch (err) {
      if (err instanceof ApiError && err.errors) setErrors(firstErrors(err.errors));
      setError('Failed to save settings. Please try again.');
    } finally {
      setSaving(false);
    }
  };

  const shownAvatar = avatarPreview || look.avatarUrl;
  return (
    <OnboardingShell step={1} title="Customize your widget" subtitle="Choose how the chat looks to your visitors." avatarUrl={shownAvatar}>
      {error && <Banner kind="error">{error}</Banner>}
      {loading ? (
        <div className="ob-loading">
          <Spinner label="Loading settings" /> Loading settings...
        </div>
      ) : (
        <form className="ob-form" onSubmit={submit} noValidate>
          {!canWrite && <ReadOnlyNotice />}
          <fieldset className="plain-fieldset" disabled={!canWrite}>
          <TextField label="Name" value={look.name} onChange={edit('name')} error={errors.name} placeholder="e.g. Support Team" autoComplete="organization" />
          <div>
            <span className="field-label" id="ob-avatar-label">
              Avatar
            </span>
            <div className="ob-avatar-row">
              <div className="ob-avatar">
                {shownAvatar ? <img src={shownAvatar} alt="Selected avatar" /> : <span aria-hidden="true">{look.name.trim().charAt(0).toUpperCase() || '👋'}</span>}
              </div>
              <div>
                <input id="ob-avatar-input" className="ob-file" type="file" accept="image/*" onChange={pickAvatar} aria-labelledby="ob-avatar-label ob-avatar-btn" />
                <label htmlFor="ob-avatar-input" className="ob-file-label" id="ob-avatar-btn">
                  {shownAvatar ? 'Change image' : 'Upload image'}
                </label>
                <p className="ob-hint">PNG, JPEG, GIF or WebP, up to 2MB.</p>
              </div>
            </div>
          </div>
          <TextField label="Title or department" value={look.title} onChange={edit('title')} error={errors.title} placeholder="e.g. Customer Support" />
          <ColorPicker value={look.color} onChange={(color) => setLook({ color })} />
          {errors.color && <div className="field-error" role="alert">{errors.color}</div>}
          </fieldset>
          <div className="ob-actions">
            <span className="ob-spacer" />
            <Button type="submit" busy={saving}>
              Next
            </Button>
          </div>
        </form>
      )}
    </OnboardingShell>
  );
}
