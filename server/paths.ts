import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The repository root, whether running from server/ (source, tests) or server/dist/ (built). */
export const REPO_ROOT = path.resolve(here, path.basename(here) === 'dist' ? '../..' : '..');
export const MIGRATIONS_DIR = path.join(REPO_ROOT, 'migrations');
export const CLIENT_DIST = path.join(REPO_ROOT, 'client', 'dist');
export const WIDGET_DIST = path.join(REPO_ROOT, 'widget', 'dist');
