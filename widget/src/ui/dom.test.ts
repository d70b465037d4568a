import { describe, expect, it } from 'vitest';
import { textOn } from './dom.js';

/** WCAG contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const lum = (hex: string) => {
    const six = hex.length === 4 ? [...hex.slice(1)].map((c) => c + c).join('') : hex.slice(1);
    const n = Number.parseInt(six, 16);
    const lin = (c: number) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(n >> 16) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

describe('textOn (text on the account colour)', () => {
  it('picks white on dark colours and black on light ones', () => {
    expect(textOn('#1b1f3b')).toBe('#fff');
    expect(textOn('#ffeb3b')).toBe('#000');
    expect(textOn('not a colour')).toBe('#fff');
  });

  it('reaches WCAG AA (4.5:1) on every colour, including the default #667eea', () => {
    expect(contrast(textOn('#667eea'), '#667eea')).toBeGreaterThanOrEqual(4.5);
    for (let r = 0; r < 256; r += 15)
      for (let g = 0; g < 256; g += 15)
        for (let b = 0; b < 256; b += 15) {
          const hex = `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
          expect(contrast(textOn(hex), hex)).toBeGreaterThanOrEqual(4.5);
        }
  });
});
