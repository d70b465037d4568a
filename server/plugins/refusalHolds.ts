import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { RefusalHoldConfig } from '../config.js';
import { clientIp } from '../realtime/auth.js';
import { ipKey } from '../services/rateLimit.js';

/**
 * Connections of refused callers held still for a while (issue 11). A refused call costs the node
 * little, but a flood that sends its next call the moment the last one is answered makes thousands
 * a second, and other tenants' calls queue behind them on the node's one thread. So a connection
 * whose call the node already knew to refuse is not read again for a while: the flooder's next call
 * waits in its own connection (no CPU here), and a client with a bounded number of connections (a
 * browser's six per host, an HTTP agent's pool, a load tool's fixed connections) slows down to what
 * the node chooses to answer. Only a client's own connection (a proxy's carries other clients'
 * calls), and at most `perIp` per client address and `max` per node: past them a connection is
 * served as before.
 */
export class RefusalHolds {
  /** Held connections: their address's key, and how the hold ends early (the connection closed). */
  private readonly holds = new Map<Socket, { key: string; timer: NodeJS.Timeout | undefined; onClose: () => void }>();
  private readonly perIp = new Map<string, number>();

  constructor(private readonly config: RefusalHoldConfig) {}

  /** Connections held now. */
  get held(): number {
    return this.holds.size;
  }

  /** Ends every hold at once: the node is closing (held connections are closed). */
  releaseAll(): void {
    for (const socket of [...this.holds.keys()]) socket.destroy();
  }

  /**
   * A large body's call, answered (the answer not ended: Node would then read the body to drop it):
   * its connection is not read again and is closed after `ms`. False past the caps (the caller
   * ends the answer, and the connection closes as before).
   */
  closeLater(req: IncomingMessage, ip: string): boolean {
    const socket = req.socket;
    if (this.config.ms <= 0 || !this.take(req, ip)) return false;
    socket.pause();
    this.after(socket, this.config.ms, () => socket.destroy());
    return true;
  }

  /**
   * A kept-alive connection whose call was just refused (`answered`: its answer, ended): its next
   * call is read `pauseMs` after the answer left. Past the caps the connection goes on as usual.
   */
  pauseAfter(req: IncomingMessage, ip: string, answered: { once(event: 'finish', listener: () => void): unknown }): void {
    const socket = req.socket;
    if (this.config.pauseMs <= 0 || !this.take(req, ip)) return;
    // Held once the answer has left and the call's (small) body has been read to its end: Node
    // resumes the connection when a call's body is complete, which would undo an earlier pause.
    // The body is read and dropped here, as Node would after the answer.
    req.resume();
    let waiting = 2;
    const hold = () => {
      if (--waiting > 0 || !this.holds.has(socket)) return;
      socket.pause();
      this.after(socket, this.config.pauseMs, () => socket.resume());
    };
    answered.once('finish', hold);
    if (req.readableEnded) hold();
    else req.once('end', hold);
  }

  /**
   * A handshake refused before the upgrade: `answer` runs `pauseMs` later (its client waits for it
   * meanwhile), or at once past the caps.
   */
  answerLater(req: IncomingMessage, ip: string, answer: () => void): void {
    if (this.config.pauseMs > 0 && this.take(req, ip)) this.after(req.socket, this.config.pauseMs, answer);
    else answer();
  }

  /** Ends the hold after `ms` with `then` (not if the connection closed first). */
  private after(socket: Socket, ms: number, then: () => void): void {
    const hold = this.holds.get(socket);
    if (!hold) return;
    hold.timer = setTimeout(() => {
      this.release(socket);
      then();
    }, ms);
    hold.timer.unref();
  }

  private take(req: IncomingMessage, ip: string): boolean {
    const socket = req.socket;
    if (this.holds.has(socket) || socket.destroyed || clientIp(req, false) !== ip) return false;
    const key = ipKey(ip);
    const count = this.perIp.get(key) ?? 0;
    if (count >= this.config.perIp || this.holds.size >= this.config.max) return false;
    const onClose = () => this.release(socket);
    this.holds.set(socket, { key, timer: undefined, onClose });
    this.perIp.set(key, count + 1);
    socket.once('close', onClose);
    return true;
  }

  private release(socket: Socket): void {
    const hold = this.holds.get(socket);
    if (!hold) return;
    this.holds.delete(socket);
    clearTimeout(hold.timer);
    socket.off('close', hold.onClose);
    const left = (this.perIp.get(hold.key) ?? 1) - 1;
    if (left > 0) this.perIp.set(hold.key, left);
    else this.perIp.delete(hold.key);
  }
}
