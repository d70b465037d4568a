import { useState } from 'react';
import { Dialog } from '../ui';
import { CUSTOMIZER_MORE_SWATCHES as MORE_SWATCHES, PRIMARY_SWATCHES, type Swatch, swatchFor } from '../../lib/palettes';

function SwatchButton({ swatch, selected, onPick }: { swatch: Swatch; selected: boolean; onPick: (hex: string) => void }) {
  return (
    <button
      type="button"
      className={`ob-swatch${selected ? ' selected' : ''}`}
      style={{ background: swatch.gradient }}
      aria-label={`${swatch.name} ${swatch.color}`}
      aria-pressed={selected}
      onClick={() => onPick(swatch.color)}
    />
  );
}

/** Five primary swatches plus a 'more' button opening the 30-colour palette in a dialog. */
export function ColorPicker({ value, onChange }: { value: string; onChange: (hex: string) => void }) {
  const [open, setOpen] = useState(false);
  const current = swatchFor(value, [...PRIMARY_SWATCHES, ...MORE_SWATCHES]);
  const inMore = MORE_SWATCHES.includes(current);
  return (
    <fieldset className="ob-colors">
      <legend className="field-label">Widget color</legend>
      <div className="ob-swatches">
        {PRIMARY_SWATCHES.map((s) => (
          <SwatchButton key={s.color} swatch={s} selected={s === current} onPick={onChange} />
        ))}
        <button
          type="button"
          className={`ob-swatch ob-more${inMore ? ' selected' : ''}`}
          style={inMore ? { background: current.gradient } : undefined}
          aria-label="More colors"
          aria-haspopup="dialog"
          onClick={() => setOpen(true)}
        >
          <span aria-hidden="true">+</span>
        </button>
      </div>
      <Dialog open={open} title="Choose a color" onClose={() => setOpen(false)} size="sm">
        <div className="ob-palette">
          {MORE_SWATCHES.map((s) => (
            <SwatchButton
              key={s.color}
              swatch={s}
              selected={s === current}
              onPick={(hex) => {
                onChange(hex);
                setOpen(false);
              }}
            />
          ))}
        </div>
      </Dialog>
    </fieldset>
  );
}
