import { describe, expect, it } from 'vitest';
import { creditOf } from './render.js';

describe('creditOf (the footer credit)', () => {
  it("shows the server's credit, and none at all when the server sends ''", () => {
    expect(creditOf({ powered_by: 'Powered by Parley' })).toBe('Powered by Parley');
    expect(creditOf({ powered_by: '' })).toBe('');
  });

  it('keeps the credit when an older server does not send the field', () => {
    expect(creditOf({} as { powered_by: string })).toBe('Powered by Parley');
  });
});
