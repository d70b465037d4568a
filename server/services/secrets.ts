import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { hash, verify } from '@node-rs/argon2';
import { and, eq, isNotNull, notLike } from 'drizzle-orm';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { serverSecrets, users, webhookEndpoints } from '../db/schema.js';

/** 256-bit opaque token, URL-safe. */
export const newToken = (): string => randomBytes(32).toString('base64url');
/** Tokens are stored only as this hash. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
/** Random, unguessable identifier of `bytes` bytes (widget keys, file names). */
export const randomId = (bytes = 16): string => randomBytes(bytes).toString('base64url');

// @node-rs/argon2 defaults to argon2id; these are OWASP's minimum recommended costs.
const ARGON = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const hashPassword = (password: string): Promise<string> => hash(password, ARGON);

// A real hash to verify against when the email is unknown, so timing does not reveal which emails exist.
let dummyHash: Promise<string> | undefined;

export async function verifyPassword(passwordHash: string | undefined, password: string): Promise<boolean> {
  if (!passwordHash) {
    dummyHash ??= hashPassword('parley-dummy-password');
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}

/**
 * Secrets stored for later use in clear (TOTP secrets, webhook signing secrets) are sealed with
 * AES-256-GCM under a key derived (HKDF-SHA256) from SECRETS_KEY, or, with nothing configured,
 * from DATA_DIR/secrets.key, made once next to the embedded database. A sealed value reads
 * `enc:v1:<key id>:<iv>:<ciphertext>:<tag>`; a value without the prefix is a clear one written
 * before sealing existed: it still reads, and is sealed when met (openSecretBox, on start).
 */
const SEALED_PREFIX = 'enc:v1:';
const KEY_FILE = 'secrets.key';

export class SecretsKeyError extends Error {}

export class SecretBox {
  readonly keyId: string;
  readonly #key: Buffer;

  constructor(material: string) {
    this.#key = Buffer.from(hkdfSync('sha256', material, 'parley-secrets', 'aes-256-gcm v1', 32));
    this.keyId = createHmac('sha256', this.#key).update('parley key id').digest('hex').slice(0, 12);
  }

  static isSealed(stored: string): boolean {
    return stored.startsWith(SEALED_PREFIX);
  }

  seal(clear: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const data = Buffer.concat([cipher.update(clear, 'utf8'), cipher.final()]);
    return `${SEALED_PREFIX}${this.keyId}:${iv.toString('base64url')}:${data.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}`;
  }

  /** The clear secret; a clear (legacy) value is answered as it is. Fails on another key's value or a tampered one. */
  open(stored: string): string {
    if (!SecretBox.isSealed(stored)) return stored;
    const [keyId, iv, data, tag] = stored.slice(SEALED_PREFIX.length).split(':');
    if (keyId !== this.keyId) throw new SecretsKeyError(`A stored secret was sealed with another key (key id ${keyId}, this server's ${this.keyId}): set the SECRETS_KEY it was sealed with.`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv ?? '', 'base64url'));
      decipher.setAuthTag(Buffer.from(tag ?? '', 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data ?? '', 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretsKeyError('A stored secret does not decrypt with this server’s key: it was altered.');
    }
  }
}

const boxes = new Map<string, SecretBox>();

/** The key material: SECRETS_KEY, else DATA_DIR/secrets.key (made once, readable by this user only). */
function keyMaterial(config: Pick<Config, 'secretsKey' | 'dataDir'>): string {
  if (config.secretsKey) return config.secretsKey;
  const file = path.join(config.dataDir, KEY_FILE);
  if (!fs.existsSync(file)) {
    // Written whole under another name, then linked: of two nodes starting at once, one key wins.
    fs.mkdirSync(config.dataDir, { recursive: true });
    const tmp = `${file}.${process.pid}.${randomId(6)}`;
    fs.writeFileSync(tmp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  const material = fs.readFileSync(file, 'utf8').trim();
  if (material.length < 32) throw new SecretsKeyError(`${file} holds no key (expected 32+ characters): restore it or set SECRETS_KEY.`);
  return material;
}

/** This configuration's box (one per key, shared by the app and its jobs). */
export function secretBoxFor(config: Pick<Config, 'secretsKey' | 'dataDir'>): SecretBox {
  const material = keyMaterial(config);
  let box = boxes.get(material);
  if (!box) {
    box = new SecretBox(material);
    boxes.set(material, box);
  }
  return box;
}

/**
 * The box, checked against the database before the server answers: the first server to start
 * records its key id; a server with another key refuses to start (fail closed) rather than
 * answer wrong two-factor codes or unsigned webhooks. Clear secrets left from before are sealed.
 */
export async function openSecretBox(config: Pick<Config, 'secretsKey' | 'dataDir'>, db: Db): Promise<SecretBox> {
  const box = secretBoxFor(config);
  await db.insert(serverSecrets).values({ name: 'secrets_key_id', value: box.keyId }).onConflictDoNothing();
  const [row] = await db.select({ value: serverSecrets.value }).from(serverSecrets).where(eq(serverSecrets.name, 'secrets_key_id'));
  if (row?.value !== box.keyId) {
    throw new SecretsKeyError(
      `SECRETS_KEY does not match the key this database's secrets were sealed with (key id ${row?.value}, this server's ${box.keyId}). ` +
        `Set the same SECRETS_KEY on every server${config.secretsKey ? '' : ` (none is set: the key is ${path.join(config.dataDir, KEY_FILE)})`}.`,
    );
  }
  await sealClearSecrets(db, box);
  return box;
}

/** Seals the TOTP and webhook secrets still stored in clear (each only if unchanged meanwhile). */
export async function sealClearSecrets(db: Db, box: SecretBox): Promise<void> {
  const clearTotp = await db
    .select({ id: users.id, secret: users.totpSecret })
    .from(users)
    .where(and(isNotNull(users.totpSecret), notLike(users.totpSecret, `${SEALED_PREFIX}%`)));
  for (const u of clearTotp) {
    if (u.secret) await db.update(users).set({ totpSecret: box.seal(u.secret) }).where(and(eq(users.id, u.id), eq(users.totpSecret, u.secret)));
  }
  const clearHooks = await db
    .select({ id: webhookEndpoints.id, secret: webhookEndpoints.secret })
    .from(webhookEndpoints)
    .where(notLike(webhookEndpoints.secret, `${SEALED_PREFIX}%`));
  for (const w of clearHooks) {
    await db.update(webhookEndpoints).set({ secret: box.seal(w.secret) }).where(and(eq(webhookEndpoints.id, w.id), eq(webhookEndpoints.secret, w.secret)));
  }
}
