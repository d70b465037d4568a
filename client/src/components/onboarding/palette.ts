import { DEFAULT_WIDGET_COLOR } from '@parley/shared';

/** A widget colour: its hex value and the two stops of its 135-degree gradient (SPEC.md section 3). */
export interface Swatch {
  name: string;
  hex: string;
  to: string;
}

export const gradientOf = (s: Pick<Swatch, 'hex' | 'to'>) => `linear-gradient(135deg, ${s.hex} 0%, ${s.to} 100%)`;

/** The five primary swatches; the first is the default colour #667eea. */
export const PRIMARY_SWATCHES: Swatch[] = [
  { name: 'Indigo', hex: DEFAULT_WIDGET_COLOR, to: '#764ba2' },
  { name: 'Ocean', hex: '#2193b0', to: '#1c6e8c' },
  { name: 'Emerald', hex: '#11998e', to: '#0b7a5c' },
  { name: 'Sunset', hex: '#f2709c', to: '#c2416b' },
  { name: 'Charcoal', hex: '#434343', to: '#1f1f1f' },
];

/** The customizer's 'more' palette: 30 colours. */
export const MORE_SWATCHES: Swatch[] = [
  { name: 'Royal Blue', hex: '#4169e1', to: '#27408b' },
  { name: 'Azure', hex: '#0a84ff', to: '#0059b3' },
  { name: 'Sky', hex: '#0ea5e9', to: '#0369a1' },
  { name: 'Cyan', hex: '#06b6d4', to: '#0e7490' },
  { name: 'Teal', hex: '#0d9488', to: '#115e59' },
  { name: 'Green', hex: '#16a34a', to: '#166534' },
  { name: 'Lime', hex: '#65a30d', to: '#3f6212' },
  { name: 'Olive', hex: '#708238', to: '#4b5723' },
  { name: 'Amber', hex: '#d97706', to: '#92400e' },
  { name: 'Orange', hex: '#ea580c', to: '#9a3412' },
  { name: 'Tangerine', hex: '#f97316', to: '#c2410c' },
  { name: 'Coral', hex: '#ff6b6b', to: '#c0392b' },
  { name: 'Red', hex: '#dc2626', to: '#991b1b' },
  { name: 'Crimson', hex: '#be123c', to: '#881337' },
  { name: 'Rose', hex: '#e11d48', to: '#9f1239' },
  { name: 'Pink', hex: '#db2777', to: '#9d174d' },
  { name: 'Fuchsia', hex: '#c026d3', to: '#86198f' },
  { name: 'Purple', hex: '#9333ea', to: '#6b21a8' },
  { name: 'Violet', hex: '#7c3aed', to: '#5b21b6' },
  { name: 'Lavender', hex: '#8e7cc3', to: '#5e4b99' },
  { name: 'Plum', hex: '#8e4585', to: '#5c2a56' },
  { name: 'Navy', hex: '#1e3a8a', to: '#172554' },
  { name: 'Midnight', hex: '#2c3e50', to: '#1a252f' },
  { name: 'Slate', hex: '#475569', to: '#1e293b' },
  { name: 'Steel', hex: '#4682b4', to: '#2c5d87' },
  { name: 'Brown', hex: '#8b5a2b', to: '#5c3a1a' },
  { name: 'Mocha', hex: '#6f4e37', to: '#4a3324' },
  { name: 'Forest', hex: '#228b22', to: '#145214' },
  { name: 'Mint', hex: '#2eb88a', to: '#1d7a5b' },
  { name: 'Graphite', hex: '#333333', to: '#000000' },
];

const ALL = [...PRIMARY_SWATCHES, ...MORE_SWATCHES];

/** The swatch for a saved colour; a colour matching no swatch falls back to the first one. */
export function swatchFor(hex: string | null | undefined): Swatch {
  const h = (hex ?? '').toLowerCase();
  return ALL.find((s) => s.hex.toLowerCase() === h) ?? PRIMARY_SWATCHES[0]!;
}
