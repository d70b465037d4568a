import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

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
