import { ApiKeysCard } from '../components/integrations/ApiKeysCard';
import { WebhooksCard } from '../components/integrations/WebhooksCard';
import { PageHeader } from '../components/layout/PageHeader';
import { can, useAuth } from '../stores/auth';

/** /api-access (owner/Admin): API keys and outbound webhooks (issue 14). The server enforces the same rule. */
export default function ApiAccess() {
  const user = useAuth((s) => s.user);
  return (
    <div className="page">
      <PageHeader title="API & Webhooks" subtitle="Connect Parley to your CRM, helpdesk and automation" />
      {can(user, 'integrations.manage') ? (
        <>
          <ApiKeysCard />
          <WebhooksCard />
        </>
      ) : (
        <p role="alert">Only the owner and Admins can manage API keys and webhooks.</p>
      )}
    </div>
  );
}
