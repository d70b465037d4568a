import {
  type AlertPrefsDto,
  type ConversationDto,
  type ConversationPayload,
  EVENTS,
  type MessageCreatedPayload,
  type SeenPayload,
} from '@parley/shared';
import { create } from 'zustand';
import { api, unwrap } from '../lib/api';
import { acquireSocket, releaseSocket } from '../lib/socket';
import { type AlertEvent, SeenKeys, alertFromAssignment, alertFromMessage } from './alertLogic';
import { TabCoordinator } from './alertTabs';
import { useConversations } from './conversations';

/**
 * "Never miss a chat" (issue 16): unread counts for the title and the sidebar, the bell's latest
 * events, and, while no console tab is visible, one desktop notification and one sound per
 * event from the leading tab. Lives for the whole signed-in session (the layout starts it).
 */

export const BELL_MAX = 20;
export type PermissionState = NotificationPermission | 'unsupported';

interface AlertsState {
  /** Unread messages per conversation (visitor id), as the server last said. */
  unread: Record<string, number>;
  /** The bell: newest first. */
  events: AlertEvent[];
  /** Bell events not yet marked read. */
  unseen: number;
  prefs: AlertPrefsDto;
  prefsLoaded: boolean;
  permission: PermissionState;
  leader: boolean;

  start: (userId: number) => () => void;
  markAllRead: () => void;
  loadPrefs: () => Promise<void>;
  /** Saves the toggles; throws ApiError. */
  savePrefs: (patch: Partial<AlertPrefsDto>) => Promise<void>;
  /** Asks the browser's permission: only ever from a click. */
  requestPermission: () => Promise<void>;
  /** How a notification's click opens a conversation (the layout gives the router's navigate). */
  setOpener: (open: ((visitorId: string) => void) | null) => void;
}

const permissionNow = (): PermissionState => (typeof Notification === 'undefined' ? 'unsupported' : Notification.permission);

let coordinator: TabCoordinator | null = null;
let opener: ((visitorId: string) => void) | null = null;
let assignSeq = 0;
const alerted = new SeenKeys();
const inBell = new SeenKeys();
/** Last known assignee per visitor id: an assignment alerts only when it changed to me. */
const assignees = new Map<string, number | null>();

// --- sound: a short two-tone chime made with WebAudio (no file to download) ---
let audio: AudioContext | null = null;
/** Browsers start audio only after a user gesture: the first click anywhere prepares it. */
function unlockAudio(): void {
  try {
    audio ??= new AudioContext();
    void audio.resume();
  } catch {
    // no WebAudio: no sound
  }
}
function playChime(): void {
  try {
    audio ??= new AudioContext();
    const ctx = audio;
    const t0 = ctx.currentTime;
    for (const [i, freq] of [880, 660].entries()) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = 'sine';
      osc.frequency.value = freq;
      const start = t0 + i * 0.14;
      gain.gain.setValueAtTime(0.0001, start);
      gain.gain.exponentialRampToValueAtTime(0.25, start + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.13);
      osc.connect(gain).connect(ctx.destination);
      osc.start(start);
      osc.stop(start + 0.14);
    }
  } catch {
    // no WebAudio: no sound
  }
}

function showNotification(ev: AlertEvent): void {
  const n = new Notification(ev.title, { body: ev.body, tag: ev.key });
  n.onclick = () => {
    window.focus();
    opener?.(ev.visitor_id);
    n.close();
  };
}

export const useAlerts = create<AlertsState>((set, get) => {
  /** Every tab keeps the bell; only the leader, and only while the agent is away, alerts. */
  const raise = (ev: AlertEvent) => {
    if (inBell.add(ev.key)) set((s) => ({ events: [ev, ...s.events].slice(0, BELL_MAX), unseen: Math.min(s.unseen + 1, BELL_MAX) }));
    const away = coordinator ? coordinator.leader && coordinator.agentAway() : document.visibilityState !== 'visible';
    if (!away || !alerted.add(ev.key)) return;
    const { prefs } = get();
    if (prefs.desktop && permissionNow() === 'granted') showNotification(ev);
    if (prefs.sound) playChime();
  };

  const noteConversation = (c: ConversationDto | undefined, me: number) => {
    if (!c?.visitor_id) return;
    set((s) => (s.unread[c.visitor_id] === c.unread_count ? s : { unread: { ...s.unread, [c.visitor_id]: c.unread_count } }));
    const previous = assignees.has(c.visitor_id) ? assignees.get(c.visitor_id) : undefined;
    assignees.set(c.visitor_id, c.assignee_id);
    const ev = alertFromAssignment(c, previous, me, ++assignSeq);
    if (ev) raise(ev);
  };

  const learn = (list: ConversationDto[]) => {
    if (list.length === 0) return;
    const unread = { ...get().unread };
    for (const c of list) {
      unread[c.visitor_id] = c.unread_count;
      assignees.set(c.visitor_id, c.assignee_id);
    }
    set({ unread });
  };

  return {
    unread: {},
    events: [],
    unseen: 0,
    prefs: { desktop: true, sound: true },
    prefsLoaded: false,
    permission: permissionNow(),
    leader: false,

    start: (me) => {
      set({ unread: {}, events: [], unseen: 0, permission: permissionNow() });
      assignees.clear();
      void get().loadPrefs();
      // What is unread already: the newest conversations (the list pages; the first page is enough for the badge).
      api
        .get('/api/vms/conversations', { query: { limit: 100 } })
        .then((body) => learn(unwrap<ConversationDto[]>(body) ?? []))
        .catch(() => undefined);
      // The message center's list, when loaded, is the fuller picture (and clears on open).
      const unsubscribe = useConversations.subscribe((s, prev) => {
        if (s.conversations !== prev.conversations) learn(s.conversations);
      });
      learn(useConversations.getState().conversations);

      const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(`parley-alerts:${me}`);
      const tabId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
      const visible = () => document.visibilityState === 'visible';
      coordinator = channel
        ? new TabCoordinator({
            tabId,
            lockName: `parley-alerts:${me}`,
            channel,
            locks: typeof navigator !== 'undefined' && navigator.locks ? navigator.locks : undefined,
            onApp: (data) => {
              if ((data as { type?: string })?.type === 'read-all') set({ unseen: 0, events: [] });
            },
            onLeaderChange: (leader) => set({ leader }),
          })
        : null;
      coordinator?.start({ visible: visible() });
      const onVisibility = () => coordinator?.announce({ visible: visible() });
      document.addEventListener('visibilitychange', onVisibility);
      window.addEventListener('pointerdown', unlockAudio, { once: true });
      window.addEventListener('keydown', unlockAudio, { once: true });

      const socket = acquireSocket();
      const onMessage = (p: MessageCreatedPayload) => {
        noteConversation(p?.conversation, me);
        const ev = alertFromMessage(p);
        if (ev) raise(ev);
      };
      const onConversation = (p: ConversationPayload) => noteConversation(p?.conversation, me);
      const onSeen = (p: SeenPayload) => {
        if (p?.by === 'agent' && p.visitor_id) set((s) => ({ unread: { ...s.unread, [p.visitor_id as string]: 0 } }));
      };
      socket?.on(EVENTS.messageCreated, onMessage);
      socket?.on(EVENTS.conversationCreated, onConversation);
      socket?.on(EVENTS.conversationUpdated, onConversation);
      socket?.on(EVENTS.messageSeen, onSeen);

      return () => {
        socket?.off(EVENTS.messageCreated, onMessage);
        socket?.off(EVENTS.conversationCreated, onConversation);
        socket?.off(EVENTS.conversationUpdated, onConversation);
        socket?.off(EVENTS.messageSeen, onSeen);
        if (socket) releaseSocket();
        unsubscribe();
        document.removeEventListener('visibilitychange', onVisibility);
        window.removeEventListener('pointerdown', unlockAudio);
        window.removeEventListener('keydown', unlockAudio);
        coordinator?.stop();
        coordinator = null;
        set({ leader: false, unread: {}, events: [], unseen: 0 });
      };
    },

    markAllRead: () => {
      set({ unseen: 0, events: [] });
      coordinator?.share({ type: 'read-all' });
    },

    loadPrefs: async () => {
      try {
        set({ prefs: unwrap<AlertPrefsDto>(await api.get('/api/vms/user/alerts')), prefsLoaded: true });
      } catch {
        // the defaults (on) stay; Settings shows its own load error
      }
    },

    savePrefs: async (patch) => {
      set({ prefs: unwrap<AlertPrefsDto>(await api.put('/api/vms/user/alerts', patch)), prefsLoaded: true });
    },

    requestPermission: async () => {
      if (typeof Notification === 'undefined') return;
      unlockAudio();
      const result = await Notification.requestPermission();
      set({ permission: result });
    },

    setOpener: (open) => {
      opener = open;
    },
  };
});
