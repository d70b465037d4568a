import Bowser from 'bowser';

export type Device = 'Desktop' | 'Mobile' | 'Tablet';

export interface ClientInfo {
  browser: string;
  os: string;
  /** '' when there is no user agent at all: nothing is known. */
  device: Device | '';
}

// Parsing runs regexes over the header: cap its length so a huge header costs nothing.
const MAX_UA = 512;

/** Browser, OS and device class of a User-Agent header, for the visitors list and dashboard. */
export function parseUserAgent(header: string | undefined): ClientInfo {
  const ua = (header ?? '').slice(0, MAX_UA).trim();
  if (!ua) return { browser: '', os: '', device: '' };
  try {
    const parsed = Bowser.parse(ua);
    const type = parsed.platform.type;
    const device: Device = type === 'mobile' ? 'Mobile' : type === 'tablet' ? 'Tablet' : 'Desktop';
    return { browser: (parsed.browser.name ?? '').slice(0, 100), os: (parsed.os.name ?? '').slice(0, 100), device };
  } catch {
    return { browser: '', os: '', device: 'Desktop' };
  }
}
