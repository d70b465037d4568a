import { useNavigate } from '@tanstack/react-router';
import { useEffect } from 'react';
import { CurrentPlan } from '../components/subscription/CurrentPlan';
import { History } from '../components/subscription/History';
import { PlanDetail } from '../components/subscription/PlanDetail';
import { PlanList } from '../components/subscription/PlanList';
import { ReadOnlyNotice } from '../components/subscription/ReadOnlyNotice';
import { StorageUsage } from '../components/storage/StorageUsage';
import '../components/subscription/subscription.css';
import { Button, Spinner } from '../components/ui';
import { useAuth, useCan } from '../stores/auth';
import { useSubscription } from '../stores/subscription';

/**
 * Subscription (SPEC.md section 2): plans, plan detail, payment redirect, verification, history,
 * and the current plan with downgrade / cancel at the period's end. The screen is the owner's
 * (PRODUCT.md section 2); team members get a read-only notice and no owner-only calls.
 */
export default function Subscription() {
  // The server's user says who may pay ('billing.manage'): the owner today.
  const mayManage = useCan('billing.manage');
  return mayManage ? <OwnerSubscription /> : <MemberNotice />;
}

function MemberNotice() {
  const user = useAuth((s) => s.user);
  useEffect(() => {
    // The sign-in answer has no plan in force; GET /api/vms/user has it.
    if (!useAuth.getState().user?.plan) void useAuth.getState().refresh();
  }, []);
  return <div className="sub">{user && <ReadOnlyNotice user={user} />}</div>;
}

function OwnerSubscription() {
  const navigate = useNavigate();
  const user = useAuth((s) => s.user);
  const st = useSubscription();

  useEffect(() => {
    const reference = new URLSearchParams(window.location.search).get('reference');
    // A fresh visit starts at the plan list, whatever was left from an earlier one.
    useSubscription.setState({ selected: null, paymentError: '', paying: false, verification: 'none' });
    void useSubscription.getState().loadPlans();
    void useSubscription.getState().loadSubscriptions();
    void useSubscription.getState().loadStatus();
    if (!reference) return;
    void (async () => {
      const subscription = await useSubscription.getState().verify(reference);
      if (useSubscription.getState().verification === 'success') {
        await navigate({ to: '/dashboard', state: (prev) => ({ ...prev, paymentSuccess: true, subscription }) });
      } else {
        // Drop the reference so a reload does not verify the same payment again.
        window.history.replaceState(window.history.state, '', window.location.pathname);
      }
    })();
  }, [navigate]);

  if (st.verification === 'verifying' || st.verification === 'success') {
    return (
      <div className="sub-verifying" role="status" aria-live="polite">
        <div>
          <Spinner size="lg" />
          <h1>Verifying Payment</h1>
          <p>We&apos;re confirming your payment details. This may take a moment.</p>
        </div>
      </div>
    );
  }

  return (
    <div className="sub">
      {st.selected ? (
        <PlanDetail
          plan={st.selected}
          popular={st.selected !== null && st.plans.indexOf(st.selected) === 1}
          paying={st.paying}
          error={st.paymentError}
          onBack={() => st.select(null)}
          onPay={() => user && st.selected && st.initializePayment(st.selected, user)}
          status={st.status}
          changing={st.changing}
          onDowngrade={async () => {
            if (st.selected && (await st.downgrade(st.selected))) st.select(null);
          }}
        />
      ) : (
        <>
          <header className="sub-head">
            <h1>Choose Your Plan</h1>
            <p>Flexible pricing that grows with your business. Upgrade, downgrade or cancel any time.</p>
          </header>
          <CurrentPlan status={st.status} error={st.statusError} changing={st.changing} onCancel={st.cancel} onKeep={st.keepPlan} />
          <PlanList plans={st.plans} loading={st.plansLoading} error={st.plansError} onSelect={(plan) => st.select(plan)} />
          <History
            items={st.subscriptions}
            loading={st.subsLoading}
            error={st.subsError}
            onRetry={() => void st.loadSubscriptions()}
            total={st.subsTotal}
            hasMore={st.subsNext !== null}
            loadingMore={st.subsMoreLoading}
            onLoadMore={() => void st.loadMoreSubscriptions()}
          />
          <StorageUsage />
        </>
      )}
      <section className="sub-help" aria-labelledby="sub-help-title">
        <h2 id="sub-help-title">Need help deciding?</h2>
        <p>Compare every feature side by side, or talk to us about a plan that fits your team.</p>
        <div>
          <Button variant="secondary">Compare Plans</Button>
          <Button variant="secondary">Contact Sales</Button>
        </div>
      </section>
    </div>
  );
}
