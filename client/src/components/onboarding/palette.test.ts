import { describe, expect, it } from 'vitest';
import { MORE_SWATCHES, PRIMARY_SWATCHES, swatchFor } from './palette';

describe('widget palettes', () => {
  it('has 5 primary swatches starting with the default #667eea and 30 more, all distinct hex values', () => {
    expect(PRIMARY_SWATCHES).toHaveLength(5);
    expect(PRIMARY_SWATCHES[0]!.hex).toBe('#667eea');
    expect(MORE_SWATCHES).toHaveLength(30);
    const all = [...PRIMARY_SWATCHES, ...MORE_SWATCHES].map((s) => s.hex.toLowerCase());
    expect(new Set(all).size).toBe(all.length);
    for (const h of all) expect(h).toMatch(/^#[0-9a-f]{6}$/);
  });
  it('finds a saved colour case-insensitively and falls back to the first swatch', () => {
    expect(swatchFor('#FF6B6B').name).toBe('Coral');
    expect(swatchFor('#123456')).toBe(PRIMARY_SWATCHES[0]);
    expect(swatchFor('')).toBe(PRIMARY_SWATCHES[0]);
  });
});
