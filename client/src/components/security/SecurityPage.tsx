import type { SecurityStatusDto } from '@parley/shared';
import { Link } from '@tanstack/react-router';
import { useCallback, useEffect, useState } from 'react';
import { api, serverError } from '../../lib/api';
import { useCan } from '../../stores/auth';
import { BellButton, PageHeader } from '../layout/PageHeader';
import { Banner, Button } from '../ui';
import { AuditLogCard, TeamSecurityCard } from './OwnerSecurity';
import { RetentionCard } from './RetentionCard';
import { VisitorDataCard } from './VisitorDataCard';
import { SessionsCard } from './SessionsCard';
import { TwoFactorCard } from './TwoFactorCard';

/**
 * Settings > Security (issue 14): email verification, two-factor sign-in, active sessions; for
 * the owner also the team's rules and the audit log. The server enforces every rule shown here.
 */
export default function SecurityPage() {
  const isOwner = useCan('security.manage');
  const canGdpr = useCan('visitors.gdpr');
  const [status, setStatus] = useState<SecurityStatusDto | null>(null);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState(() => {
    const outcome = new URLSearchParams(window.location.search).get('email_verified');
    return outcome === 'confirmed' ? 'Your email address is verified.' : outcome === 'invalid' ? 'That verification link is invalid or has expired.' : '';
  });
  const load = useCallback(() => {
    api
      .getData<SecurityStatusDto>('/api/vms/user/security')
      .then(setStatus)
      .catch((e: unknown) => setError(serverError(e, 'Could not load your security settings')));
  }, []);
  useEffect(load, [load]);

  const resend = async () => {
    try {
      await api.post('/api/vms/user/email/verify/resend');
      setNotice(`We sent a new verification link to ${status?.email ?? 'your email'}.`);
    } catch (e) {
      setError(serverError(e, 'Could not send the link'));
    }
  };

  return (
    <>
      <PageHeader title="Security" subtitle="Sign-in protection, sessions and the audit log" actions={<BellButton />} />
      <p className="page-note">
        <Link to="/settings">Back to Settings</Link>
      </p>
      {error && <Banner kind="error" onDismiss={() => setError('')}>{error}</Banner>}
      {notice && <Banner kind="info" onDismiss={() => setNotice('')}>{notice}</Banner>}
      {status && !status.email_verified && (
        <Banner kind="info" autoDismiss={false}>
          Please verify {status.email}: payments and webhooks need a verified email.{' '}
          <Button variant="link" onClick={() => void resend()}>
            Send a new link
          </Button>
        </Banner>
      )}
      {status && (
        <div className="settings-grid">
          <div className="section-gap">
            <TwoFactorCard status={status} reload={load} />
            <SessionsCard />
          </div>
          <div className="section-gap">
            {isOwner && <TeamSecurityCard status={status} reload={load} />}
            {canGdpr && <RetentionCard />}
            {canGdpr && <VisitorDataCard />}
          </div>
        </div>
      )}
      {isOwner && <AuditLogCard />}
    </>
  );
}
