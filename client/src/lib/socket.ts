import type { UserDto } from '@parley/shared';
import { io, type Socket } from 'socket.io-client';
import { useAuth } from '../stores/auth';
import { api, getToken } from './api';

/**
 * The console's one Socket.IO connection (PRODUCT.md section 5), shared by every screen that
 * wants live events. Reference-counted: the last release disconnects. The REST polling stays
 * as the fallback, so a socket that never connects costs nothing.
 */
let socket: Socket | null = null;
let users = 0;

export function acquireSocket(): Socket | null {
  const token = getToken();
  if (!token) return null;
  users++;
  if (!socket) {
    const s = io(window.location.origin, {
      auth: { token },
      transports: ['websocket', 'polling'],
      reconnectionDelay: 1000,
      reconnectionDelayMax: 10_000,
    });
    // The server closed it on purpose: the session ended, or this user's status changed.
    s.on('disconnect', (reason) => {
      if (reason === 'io server disconnect') void comeBackIfSignedIn(s);
    });
    socket = s;
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
  }
}
