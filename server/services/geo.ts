import { createRequire } from 'node:module';

/** The part of geoip-country we use (the package ships no types). */
interface GeoIp {
  lookup(ip: string): { name?: string } | null;
}

const require = createRequire(import.meta.url);
// Loaded on first use: the offline database takes a few ms and some MB to read.
let geoip: GeoIp | undefined;

/** `::ffff:1.2.3.4` (IPv4 seen through an IPv6 socket) is stored as plain `1.2.3.4`. */
export function normalizeIp(ip: string | undefined): string {
  if (!ip) return '';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  return (mapped?.[1] ?? ip).slice(0, 64);
}

/** Country name of an IP from the offline GeoLite2 data; '' when unknown or private. */
export function countryForIp(ip: string): string {
  if (!ip) return '';
  try {
    geoip ??= require('geoip-country') as GeoIp;
    return geoip.lookup(ip)?.name ?? '';
  } catch {
    return '';
  }
}
