import { Link } from '@tanstack/react-router';
import { BellButton, PageHeader } from '../components/layout/PageHeader';
import { DangerZone, PasswordForm, ProfileForm } from '../components/settings/AccountForms';
import { AlertSettings } from '../components/settings/AlertSettings';
import { AccountInfoForm, GreetingsForm } from '../components/settings/GreetingsAccountForms';
import { BusinessHoursCard } from '../components/settings/BusinessHoursCard';
import { WidgetLanguageCard } from '../components/settings/WidgetLanguageCard';
import { WidgetSettingsForm } from '../components/settings/WidgetSettingsForm';
import { CannedRepliesManager } from '../components/inbox/CannedRepliesManager';
import { LabelsManager } from '../components/inbox/LabelsManager';
import { SatisfactionSettings } from '../components/ratings/SatisfactionSettings';
import { ProactiveMessages } from '../components/proactive/ProactiveMessages';
import { useCan } from '../stores/auth';

/**
 * Settings (SPEC.md section 2 /settings): widget, greetings and account information (the
 * onboarding wizard's fields, changeable any time), profile, this user's desktop alerts,
 * password, Danger Zone. Forms the
 * user may not write show read only; the Danger Zone only to who may delete the account.
 */
export default function Settings() {
  const canDelete = useCan('account.delete');
  const canWrite = useCan('settings.write');
  return (
    <>
      <PageHeader title="Settings" subtitle="Manage your widget, profile and account" actions={<BellButton />} />
      {canWrite && (
        <p className="page-note">
          Prefer a guided tour? <Link to="/widget-settings">Open the setup wizard</Link> with a live preview of your widget.
        </p>
      )}
      <p className="page-note">
        <Link to="/settings/security">Security</Link>: two-factor sign-in, active sessions{canDelete ? ', the audit log' : ''}.
      </p>
      <div className="settings-grid">
        <div className="section-gap">
          <WidgetSettingsForm />
          <GreetingsForm />
          <WidgetLanguageCard />
          <BusinessHoursCard />
          <CannedRepliesManager />
          <LabelsManager />
          <SatisfactionSettings />
          <ProactiveMessages />
        </div>
        <div className="section-gap">
          <ProfileForm />
          <AlertSettings />
          <PasswordForm />
          <AccountInfoForm />
          {canDelete && <DangerZone />}
        </div>
      </div>
    </>
  );
}
