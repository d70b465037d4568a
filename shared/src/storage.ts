/**
 * Stored files (server/services/storage.ts): beside each chat image `<account>/<random>.<ext>`
 * lies its bounded thumbnail `<account>/<random>-t.<ext>`, which the console shows.
 */
export function thumbnailPathOf(filePath: string): string {
  return filePath.replace(/(\.[a-z0-9]+)$/, '-t$1');
}
