import { EVENTS, type ReconnectHintPayload, type UserDto } from '@parley/shared';
import { io, type Socket } from 'socket.io-client';
import { create } from 'zustand';
import { useAuth } from '../stores/auth';
import { api, getToken } from './api';

/**
 * The console's one Socket.IO connection (PRODUCT.md section 5), shared by every screen that
 * wants live events. Reference-counted: the last release disconnects. The signed-in layout holds
 * one reference for the whole session (alerts, connection state), so screens share one socket.
 * The REST polling stays as the fallback, so a socket that never connects costs nothing.
 */
let socket: Socket | null = null;
let users = 0;

/**
 * Reconnection: exponential backoff from 1 s, doubling up to 10 s, each wait spread by +-50 %
 * (socket.io-client's randomizationFactor) so consoles cut at once do not come back at once.
 */
export const RECONNECT_OPTIONS = {
  reconnection: true,
  reconnectionDelay: 1000,
  reconnectionDelayMax: 10_000,
  randomizationFactor: 0.5,
} as const;

/**
 * `idle`: no socket (signed out). `connecting`: first attempt. `live`: connected.
 * `reconnecting`: was live (or never got through) and is trying again: the console shows
 * "Reconnecting..." and the stores catch up on the next `connect`.
 */
export type SocketStatus = 'idle' | 'connecting' | 'live' | 'reconnecting';

interface SocketState {
  status: SocketStatus;
  /** Incremented on every connect after the first: stores that hold data reload what changed. */
  reconnects: number;
}

export const useSocketState = create<SocketState>(() => ({ status: 'idle', reconnects: 0 }));

function track(s: Socket): void {
  let connectedOnce = false;
  useSocketState.setState({ status: 'connecting' });
  s.on('connect', () => {
    if (socket !== s) return;
    useSocketState.setState((st) => ({ status: 'live', reconnects: connectedOnce ? st.reconnects + 1 : st.reconnects }));
    connectedOnce = true;
  });
  s.on('disconnect', () => socket === s && useSocketState.setState({ status: 'reconnecting' }));
  s.on('connect_error', () => socket === s && useSocketState.setState({ status: 'reconnecting' }));
}

export function acquireSocket(): Socket | null {
  const token = getToken();
  if (!token) return null;
  users++;
  if (!socket) {
    const s = io(window.location.origin, {
      auth: { token },
      transports: ['websocket', 'polling'],
      // A WebSocket blocked on the way (proxy, antivirus) or missing: long-poll instead of staying offline.
      tryAllTransports: true,
      ...RECONNECT_OPTIONS,
    });
    // The server closed it on purpose: the session ended, or this user's status changed.
    s.on('disconnect', (reason) => {
      if (reason === 'io server disconnect') void comeBackIfSignedIn(s);
    });
    // A node draining for a restart closes the connection after this hint: the first retry waits
    // the server's (per-socket jittered) delay, later ones the usual backoff.
    s.on(EVENTS.serverReconnect, (p: ReconnectHintPayload) => {
      if (typeof p?.in_ms !== 'number' || p.in_ms < 0 || p.in_ms > 60_000) return;
      s.io.reconnectionDelay(p.in_ms);
      s.io.randomizationFactor(0);
      s.io.once('reconnect_attempt', () => {
        s.io.reconnectionDelay(RECONNECT_OPTIONS.reconnectionDelay);
        s.io.randomizationFactor(RECONNECT_OPTIONS.randomizationFactor);
      });
    });
    socket = s;
    track(s);
  }
  return socket;
}

/** Reloads the user (the screens follow the new status) and reconnects while the session is valid. */
async function comeBackIfSignedIn(s: Socket): Promise<void> {
  // Closed because this console is signing out: its token is revoked, asking would only 401.
  if (useAuth.getState().signingOut || !getToken()) return;
  try {
    useAuth.getState().setUser(await api.get<UserDto>('/api/vms/user'));
  } catch {
    return; // the session is over: stay closed; the next REST call says so
  }
  if (socket === s) s.connect();
}

export function releaseSocket(): void {
  users = Math.max(0, users - 1);
  if (users === 0 && socket) {
    socket.disconnect();
    socket = null;
    useSocketState.setState({ status: 'idle' });
  }
}
