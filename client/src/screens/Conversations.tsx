import { useNavigate, useSearch } from '@tanstack/react-router';
import { POLL_INTERVAL_MS } from '@parley/shared';
import { useEffect, useMemo, useRef, useState } from 'react';
import { ChatView } from '../components/conversations/ChatView';
import { COMPOSER_INPUT_ID } from '../components/conversations/Composer';
import { ConversationActions } from '../components/conversations/ConversationActions';
import { ConversationList } from '../components/conversations/ConversationList';
import { ConversationLabels } from '../components/inbox/ConversationLabels';
import { LabelFilter } from '../components/inbox/LabelFilter';
import { withLabel } from '../lib/labels';
import { KeyboardHelp } from '../components/conversations/KeyboardHelp';
import { SearchResults } from '../components/conversations/SearchResults';
import { VisitorPanel } from '../components/conversations/VisitorPanel';
import { neighbour, shortcutFor } from '../components/conversations/shortcuts';
import { BellButton, PageHeader, SearchBox } from '../components/layout/PageHeader';
import { Icon } from '../components/icons';
import { filterConversations, statusOf } from '../stores/conversationLogic';
import { useAuth } from '../stores/auth';
import { useConversations } from '../stores/conversations';
import { useInbox } from '../stores/inbox';
import { useVisitors } from '../stores/visitors';

const EMPTY: never[] = [];
const SEARCH_LABEL = 'Search conversations';

/**
 * Message center (SPEC.md section 2 /conversations; issue 16): live through the socket, and a
 * 10 s poll of what changed only (never the whole list) and of the open thread's new messages.
 */
export default function Conversations() {
  const navigate = useNavigate();
  const user = useAuth((s) => s.user);
  const logout = useAuth((s) => s.logout);
  const s = useConversations();
  const [help, setHelp] = useState(false);
  // The visitor side panel: open by default where there is room for three columns.
  const [details, setDetails] = useState(() => typeof window !== 'undefined' && window.matchMedia?.('(min-width: 1200px)').matches === true);

  useEffect(() => {
    const store = useConversations.getState();
    if (store.ownerId !== user?.id) store.reset(user?.id ?? null);
    void store.loadConversations('reset');
    void store.loadMembers();
    const disconnect = store.connect();
    // PRODUCT.md section 11: the 10 s cadence stays, asking only what changed (commit-safe
    // cursors), so it returns almost nothing while the socket is live and never the whole list.
    const timer = setInterval(() => {
      const st = useConversations.getState();
      void st.pollChanges();
      if (st.selectedId) void st.loadMessages(st.selectedId, 'poll');
    }, POLL_INTERVAL_MS);
    return () => {
      clearInterval(timer);
      disconnect();
    };
  }, [user?.id]);

  // "Start Chat" on Visitors: open that visitor's conversation, even before it has a message
  // (the first reply creates it on the server).
  const startWith = useSearch({ from: '/app/conversations' }).visitor;
  useEffect(() => {
    if (!startWith) return;
    useConversations.getState().select(startWith);
    if (!useVisitors.getState().loaded) void useVisitors.getState().load();
  }, [startWith]);
  const visitors = useVisitors((v) => v.visitors);

  const messages = s.selectedId ? (s.messagesByVisitor[s.selectedId] ?? EMPTY) : EMPTY;
  const searching = s.search.trim().length > 0;
  // Without a server search call the box filters what is loaded (PRODUCT.md section 10).
  const labelFilter = useInbox((i) => i.labelFilter);
  const shown = useMemo(
    () =>
      withLabel(
        s.serverSearch ? s.conversations : filterConversations(s.conversations, s.search, (c) => (s.messagesByVisitor[c.visitor_id] ?? []).map((m) => m.message).join('\n')),
        labelFilter,
      ),
    [s.serverSearch, s.conversations, s.search, s.messagesByVisitor, labelFilter],
  );
  const selected = s.current && s.current.visitor_id === s.selectedId ? s.current : (s.conversations.find((c) => c.visitor_id === s.selectedId) ?? null);
  // A visitor with no conversation yet (or opened from a search hit): the header shows what is known.
  const startedVisitor = !selected && s.selectedId ? visitors.find((v) => v.id === s.selectedId) : undefined;
  const hitName = !selected && s.selectedId ? s.searchResults?.find((h) => h.visitor_id === s.selectedId)?.visitor_name : undefined;
  // The server's rule (E: 'conversations.assignAny'; before it, owner/Admin = 'conversations.readAll').
  const canAssignAnyone = Boolean(user?.permissions?.some((p) => p === 'conversations.assignAny' || p === 'conversations.readAll'));
  const activeCount = s.counts ? s.counts.all.open + s.counts.all.pending : s.conversations.length;

  // Keyboard shortcuts; none fires while typing in a field (shortcutFor) or with a dialog open.
  const shortcutState = useRef({ shown, selected, help, canAssignAnyone });
  shortcutState.current = { shown, selected, help, canAssignAnyone };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const action = shortcutFor(e);
      if (!action) return;
      const { shown: rows, selected: conv, help: helpOpen } = shortcutState.current;
      if (helpOpen || document.querySelector('[role="dialog"]')) return;
      const st = useConversations.getState();
      const uid = useAuth.getState().user?.id ?? null;
      if (action === 'help') setHelp(true);
      else if (action === 'search') document.querySelector<HTMLInputElement>(`input[aria-label="${SEARCH_LABEL}"]`)?.focus();
      else if (action === 'next' || action === 'previous') {
        const ids = rows.map((c) => c.visitor_id);
        const to = neighbour(ids, st.selectedId, action === 'next' ? 1 : -1);
        if (!to) return;
        st.select(to);
        document.querySelector(`[data-visitor-id="${CSS.escape(to)}"]`)?.scrollIntoView({ block: 'nearest' });
        if (action === 'next' && ids.indexOf(to) >= ids.length - 3) void st.loadConversations('more');
      } else if (!st.selectedId) return;
      else if (action === 'composer') document.getElementById(COMPOSER_INPUT_ID)?.focus();
      else if (action === 'resolve') void st.setStatus(st.selectedId, conv && statusOf(conv) === 'resolved' ? 'open' : 'resolved');
      else if (action === 'assignMe') {
        if (uid === null || conv?.assignee_id === uid) return;
        if (conv?.assignee_id != null && !shortcutState.current.canAssignAnyone) return;
        void st.assign(st.selectedId, uid);
      }
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const onLogout = async () => {
    await logout();
    void navigate({ to: '/login' });
  };

  const jump = s.jump && s.jump.visitorId === s.selectedId ? s.jump : null;
  const older = s.selectedId ? s.older[s.selectedId] : undefined;
  return (
    <>
      <PageHeader
        title="Message Center"
        subtitle={s.live ? 'Live: new messages appear as they arrive' : 'Talk with the visitors on your website'}
        actions={
          <>
            <SearchBox placeholder="Search visitors..." label={SEARCH_LABEL} value={s.search} onChange={s.setSearch} />
            <LabelFilter />
            <BellButton />
            <button type="button" className="icon-btn" aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)" onClick={() => setHelp(true)}>
              ?
            </button>
            <button type="button" className="btn btn-secondary btn-md" onClick={onLogout}>
              <Icon.logout /> <span className="label-wide">Logout</span>
            </button>
          </>
        }
      />
      <div className={`card mc${s.selectedId ? ' has-selection' : ''}${s.selectedId && details ? ' has-context' : ''}`}>
        <ConversationList
          conversations={shown}
          activeCount={activeCount}
          filter={s.filter}
          counts={s.counts}
          onFilter={s.setFilter}
          loading={s.convLoading}
          error={s.convError}
          selectedId={s.selectedId}
          online={s.online}
          typing={s.typing}
          searching={searching}
          hasMore={s.hasMore && !searching}
          moreLoading={s.moreLoading}
          onLoadMore={() => void s.loadConversations('more')}
          onSelect={s.select}
          replaceList={
            searching && s.serverSearch ? (
              <SearchResults
                query={s.search}
                results={s.searchResults}
                loading={s.searchLoading}
                error={s.searchError}
                hasMore={Boolean(s.searchNext)}
                onMore={() => void s.loadMoreSearch()}
                onOpen={(hit) => void s.openSearchHit(hit)}
              />
            ) : undefined
          }
        />
        {s.selectedId ? (
          <ChatView
            conversation={selected}
            visitor={startedVisitor ? { name: startedVisitor.name ?? '', email: startedVisitor.email ?? '' } : hitName !== undefined ? { name: hitName, email: '' } : undefined}
            visitorId={s.selectedId}
            messages={messages}
            loading={s.messagesLoading}
            error={s.messagesError}
            sendError={s.sendError}
            typing={Boolean(s.typing[s.selectedId])}
            online={s.online[s.selectedId]}
            canAttach={user?.status !== 'disabled'}
            onBack={() => s.select(null)}
            onSend={(text, image) => void s.send(text, image)}
            onTyping={s.sendTyping}
            onDismissSendError={s.clearSendError}
            headerActions={
              <>
              <button type="button" className="btn btn-secondary btn-sm" aria-pressed={details} onClick={() => setDetails((d) => !d)}>
                Visitor details
              </button>
              <ConversationLabels conversation={selected} />
              <ConversationActions
                conversation={selected}
                userId={user?.id ?? null}
                canAssignAnyone={canAssignAnyone}
                members={s.members}
                busy={s.actionBusy}
                onStatus={(status, snooze) => s.selectedId && void s.setStatus(s.selectedId, status, snooze)}
                onAssign={(uid) => s.selectedId && void s.assign(s.selectedId, uid)}
              />
              </>
            }
            actionError={s.actionError}
            onDismissActionError={s.clearActionError}
            hasOlder={older?.hasMore ?? false}
            olderLoading={older?.loading ?? false}
            onLoadOlder={() => s.selectedId && void s.loadOlder(s.selectedId)}
            jumpTo={jump}
            seenId={Math.max(selected?.visitor_seen_id ?? 0, s.visitorSeen[s.selectedId] ?? 0) || null}
          />
        ) : (
          <section className="mc-chat" aria-label="Chat">
            <div className="empty" style={{ margin: 'auto' }}>
              <div className="empty-icon">
                <Icon.chat />
              </div>
              <h2>Select a conversation</h2>
              <p>Choose a conversation from the list to view messages</p>
            </div>
          </section>
        )}
        {s.selectedId && details ? <VisitorPanel visitorId={s.selectedId} labels={selected?.labels} onClose={() => setDetails(false)} /> : null}
      </div>
      <KeyboardHelp open={help} onClose={() => setHelp(false)} />
    </>
  );
}
