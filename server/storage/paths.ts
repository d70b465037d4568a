/** `<account>/<random>.png` -> `<account>/<random>-t.png`: the bounded copy the console shows. */
export function thumbnailPathOf(rel: string): string {
  return rel.replace(/(\.[a-z0-9]+)$/, '-t$1');
}
