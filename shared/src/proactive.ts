// Issue 13, proactive messages: zod-free, so the widget's lazily loaded module can import it.

/** Whether a page address matches a trigger's pattern: '' any page; '*' any run of characters;
 *  a pattern with '://' is matched against the whole address, else against its path. */
export function urlMatches(pattern: string, href: string): boolean {
  if (!pattern) return true;
  let target = href;
  if (!pattern.includes('://')) {
    try {
      target = new URL(href).pathname;
    } catch {
      return false;
    }
  }
  const re = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i');
  return re.test(target);
}
