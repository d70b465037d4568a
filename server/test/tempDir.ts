import fs from 'node:fs/promises';

/**
 * Removes a test's temporary folder. A background write that lands while the folder is being
 * removed (an email file the app's jobs were still writing when the test closed it) makes one pass
 * fail with ENOTEMPTY: fs.rm then tries again (stop 24 and a session 11 run failed a whole test
 * file on it).
 */
export function removeTempDir(dir: string): Promise<void> {
  return fs.rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}
