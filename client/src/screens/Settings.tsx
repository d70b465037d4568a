import { BellButton, PageHeader } from '../components/layout/PageHeader';
import { DangerZone, PasswordForm, ProfileForm } from '../components/settings/AccountForms';
import { WidgetSettingsForm } from '../components/settings/WidgetSettingsForm';
import { isAdmin, useAuth } from '../stores/auth';

/** Settings (SPEC.md section 2 /settings): widget, profile, password, Danger Zone for admins. */
export default function Settings() {
  const user = useAuth((s) => s.user);
  return (
    <>
      <PageHeader title="Settings" subtitle="Manage your widget, profile and account" actions={<BellButton />} />
      <div className="settings-grid">
        <WidgetSettingsForm />
        <div className="section-gap">
          <ProfileForm />
          <PasswordForm />
          {isAdmin(user) && <DangerZone />}
        </div>
      </div>
    </>
  );
}
