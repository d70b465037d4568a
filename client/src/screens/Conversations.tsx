import { useNavigate, useSearch } from '@tanstack/react-router';
import { POLL_INTERVAL_MS } from '@parley/shared';
import { useEffect, useMemo } from 'react';
import { ChatView } from '../components/conversations/ChatView';
import { ConversationList } from '../components/conversations/ConversationList';
import { BellButton, PageHeader, SearchBox } from '../components/layout/PageHeader';
import { Icon } from '../components/icons';
import { filterConversations } from '../stores/conversationLogic';
import { useAuth } from '../stores/auth';
import { useConversations } from '../stores/conversations';
import { useVisitors } from '../stores/visitors';

const EMPTY: never[] = [];

/** Message center (SPEC.md section 2 /conversations), live through the socket, polled every 10 s. */
export default function Conversations() {
  const navigate = useNavigate();
  const user = useAuth((s) => s.user);
  const logout = useAuth((s) => s.logout);
  const s = useConversations();

  // Live events for as long as the screen is open; the poll runs regardless, as the fallback.
  useEffect(() => {
    const store = useConversations.getState();
    if (store.ownerId !== user?.id) store.reset(user?.id ?? null);
    void store.loadConversations();
    const disconnect = store.connect();
    const timer = setInterval(() => {
      const st = useConversations.getState();
      void st.loadConversations();
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
  const filtered = useMemo(
    () => filterConversations(s.conversations, s.search, (c) => (s.messagesByVisitor[c.visitor_id] ?? []).map((m) => m.message).join('\n')),
    [s.conversations, s.search, s.messagesByVisitor],
  );
  const selected = s.conversations.find((c) => c.visitor_id === s.selectedId) ?? null;
  // A visitor with no conversation yet: the header shows what the visitors list knows.
  const startedVisitor = !selected && s.selectedId ? visitors.find((v) => v.id === s.selectedId) : undefined;

  const onLogout = async () => {
    await logout();
    void navigate({ to: '/login' });
  };

  return (
    <>
      <PageHeader
        title="Message Center"
        subtitle={s.live ? 'Live: new messages appear as they arrive' : 'Talk with the visitors on your website'}
        actions={
          <>
            <SearchBox placeholder="Search visitors..." label="Search conversations" value={s.search} onChange={s.setSearch} />
            <BellButton />
            <button type="button" className="btn btn-secondary btn-md" onClick={onLogout}>
              <Icon.logout /> <span className="label-wide">Logout</span>
            </button>
          </>
        }
      />
      <div className={`card mc${s.selectedId ? ' has-selection' : ''}`}>
        <ConversationList
          conversations={filtered}
          total={s.conversations.length}
          loading={s.convLoading}
          error={s.convError}
          selectedId={s.selectedId}
          online={s.online}
          typing={s.typing}
          searching={s.search.trim().length > 0}
          onSelect={s.select}
        />
        {s.selectedId ? (
          <ChatView
            conversation={selected}
            visitor={startedVisitor ? { name: startedVisitor.name ?? '', email: startedVisitor.email ?? '' } : undefined}
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
      </div>
    </>
  );
}
