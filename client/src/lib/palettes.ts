import { DEFAULT_WIDGET_COLOR } from '@parley/shared';

/** A widget colour: its hex value and the two-stop 135-degree gradient drawn from it (SPEC.md s.3). */
export interface Swatch {
  name: string;
  color: string;
  gradient: string;
}

const sw = (name: string, color: string, to: string): Swatch => ({ name, color, gradient: `linear-gradient(135deg, ${color} 0%, ${to} 100%)` });

/** Five primary swatches; the first is the default #667eea. */
export const PRIMARY_SWATCHES: Swatch[] = [
  sw('Indigo', DEFAULT_WIDGET_COLOR, '#764ba2'),
  sw('Ocean', '#2193b0', '#6dd5ed'),
  sw('Emerald', '#11998e', '#38ef7d'),
  sw('Sunset', '#f2709c', '#ff9472'),
  sw('Midnight', '#232526', '#414345'),
];

/** The longer 'more' palette: 30 colours; the settings page shows the first 20. */
export const MORE_SWATCHES: Swatch[] = [
  sw('Royal', '#4776e6', '#8e54e9'),
  sw('Grape', '#7f00ff', '#e100ff'),
  sw('Berry', '#8e2de2', '#4a00e0'),
  sw('Rose', '#ee0979', '#ff6a00'),
  sw('Cherry', '#eb3349', '#f45c43'),
  sw('Coral', '#ff5f6d', '#ffc371'),
  sw('Amber', '#f7971e', '#ffd200'),
  sw('Lime', '#56ab2f', '#a8e063'),
  sw('Forest', '#134e5e', '#71b280'),
  sw('Teal', '#0f9b8e', '#3ad0c1'),
  sw('Sky', '#2980b9', '#6dd5fa'),
  sw('Azure', '#1fa2ff', '#12d8fa'),
  sw('Navy', '#141e30', '#243b55'),
  sw('Slate', '#485563', '#29323c'),
  sw('Steel', '#606c88', '#3f4c6b'),
  sw('Plum', '#5f2c82', '#49a09d'),
  sw('Magenta', '#c33764', '#1d2671'),
  sw('Peach', '#ed4264', '#ffedbc'),
  sw('Mint', '#00b09b', '#96c93d'),
  sw('Violet', '#654ea3', '#eaafc8'),
  sw('Crimson', '#b31217', '#e52d27'),
  sw('Bronze', '#c79081', '#dfa579'),
  sw('Olive', '#3d7eaa', '#ffe47a'),
  sw('Lagoon', '#43cea2', '#185a9d'),
  sw('Dusk', '#2c3e50', '#fd746c'),
  sw('Orchid', '#da22ff', '#9733ee'),
  sw('Cobalt', '#0052d4', '#65c7f7'),
  sw('Ruby', '#d31027', '#ea384d'),
  sw('Jade', '#1d976c', '#93f9b9'),
  sw('Charcoal', '#373b44', '#4286f4'),
];
export const SETTINGS_MORE_SWATCHES = MORE_SWATCHES.slice(0, 20);
export const CUSTOMIZER_MORE_SWATCHES = MORE_SWATCHES.slice(0, 30);

/** The swatch of a saved colour; one matching no swatch falls back to the first swatch. */
export function swatchFor(color: string | null | undefined, palette: Swatch[] = [...PRIMARY_SWATCHES, ...MORE_SWATCHES]): Swatch {
  const c = (color ?? '').toLowerCase();
  return palette.find((s) => s.color.toLowerCase() === c) ?? PRIMARY_SWATCHES[0]!;
}
