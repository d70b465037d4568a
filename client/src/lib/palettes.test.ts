import { describe, expect, it } from 'vitest';
import { CUSTOMIZER_MORE_SWATCHES, PRIMARY_SWATCHES, SETTINGS_MORE_SWATCHES, swatchFor } from './palettes';

describe('widget palettes (SPEC.md section 3)', () => {
  it('has 5 primary swatches starting with the default #667eea, 30 more in the customizer, the first 20 in settings, all distinct', () => {
    expect(PRIMARY_SWATCHES).toHaveLength(5);
    expect(PRIMARY_SWATCHES[0]!.color).toBe('#667eea');
    expect(CUSTOMIZER_MORE_SWATCHES).toHaveLength(30);
    expect(SETTINGS_MORE_SWATCHES).toEqual(CUSTOMIZER_MORE_SWATCHES.slice(0, 20));
    const all = [...PRIMARY_SWATCHES, ...CUSTOMIZER_MORE_SWATCHES].map((s) => s.color.toLowerCase());
    expect(new Set(all).size).toBe(all.length);
    for (const c of all) expect(c).toMatch(/^#[0-9a-f]{6}$/);
    for (const s of PRIMARY_SWATCHES) expect(s.gradient).toMatch(new RegExp(`^linear-gradient\\(135deg, ${s.color} 0%, #[0-9a-f]{6} 100%\\)$`, 'i'));
  });

  it('finds a saved colour case-insensitively and falls back to the first swatch', () => {
    expect(swatchFor('#FF5F6D').name).toBe('Coral');
    expect(swatchFor('#123456')).toBe(PRIMARY_SWATCHES[0]);
    expect(swatchFor('')).toBe(PRIMARY_SWATCHES[0]);
    // A 'more' colour beyond settings' 20 falls back there, as SPEC.md says for any unknown colour.
    const late = CUSTOMIZER_MORE_SWATCHES[25]!;
    expect(swatchFor(late.color)).toBe(late);
    expect(swatchFor(late.color, [...PRIMARY_SWATCHES, ...SETTINGS_MORE_SWATCHES])).toBe(PRIMARY_SWATCHES[0]);
  });
});
