import { io, type Socket } from 'socket.io-client';
import { getToken } from './api';

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
    socket = io(window.location.origin, {
      auth: { token },
      transports: ['websocket', 'polling'],
      reconnectionDelay: 1000,
      reconnectionDelayMax: 10_000,
    });
  }
  return socket;
}

export function releaseSocket(): void {
  users = Math.max(0, users - 1);
  if (users === 0 && socket) {
    socket.disconnect();
    socket = null;
  }
}

/** Logout: drop the connection whatever the count. */
export function closeSocket(): void {
  users = 0;
  socket?.disconnect();
  socket = null;
}

export function currentSocket(): Socket | null {
  return socket;
}
