/** "14:05 (Europe/Paris)": the visitor's clock, or null when their zone is unknown or invalid. */
export function localTime(timeZone: string, now: number): string | null {
  if (!timeZone) return null;
  try {
    const t = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit' }).format(new Date(now));
    return `${t} (${timeZone})`;
  } catch {
    return null;
  }
}
