/**
 * A small per-node cache of async answers that may be a little stale (live presence, AI
 * settings): each key is loaded at most once per `ttlMs`; concurrent readers share the load.
 * A failed load is not kept. Writers on this node call `forget`; other nodes see a change
 * within `ttlMs`.
 */
export interface TtlCache<K, V> {
  get(key: K, load: (key: K) => Promise<V>): Promise<V>;
  forget(key: K): void;
}

export function ttlCache<K, V>(ttlMs: number, maxEntries = 10_000): TtlCache<K, V> {
  const entries = new Map<K, { at: number; value: Promise<V> }>();
  return {
    get(key, load) {
      const now = Date.now();
      const hit = entries.get(key);
      if (hit && now - hit.at < ttlMs) return hit.value;
      if (entries.size >= maxEntries) entries.clear();
      const value = load(key);
      const entry = { at: now, value };
      entries.set(key, entry);
      value.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      return value;
    },
    forget(key) {
      entries.delete(key);
    },
  };
}
