import fs from 'node:fs/promises';
import path from 'node:path';
import { randomId } from './secrets.js';

/**
 * Uploaded files on the local disk (one volume shared by all nodes in docker-compose.yml).
 * Paths are `<account id>/<random>.<ext>`: unguessable, and an account's files go with it.
 */
export class Storage {
  constructor(readonly root: string) {}

  async save(accountId: string, bytes: Buffer, ext: string): Promise<string> {
    const rel = `${accountId}/${randomId(18)}.${ext}`;
    const full = path.join(this.root, rel);
    await fs.mkdir(path.dirname(full), { recursive: true });
    await fs.writeFile(full, bytes, { flag: 'wx' });
    return rel;
  }

  async removeAccount(accountId: string): Promise<void> {
    await fs.rm(path.join(this.root, accountId), { recursive: true, force: true });
  }

  fullPath(rel: string): string {
    return path.join(this.root, rel);
  }
}
