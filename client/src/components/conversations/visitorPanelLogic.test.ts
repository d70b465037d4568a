import { describe, expect, it } from 'vitest';
import { localTime } from './visitorPanelLogic';

describe('localTime', () => {
  const noonUtc = Date.UTC(2026, 10, 24, 12, 5);
  it("shows the visitor's clock in their zone", () => {
    expect(localTime('Asia/Tokyo', noonUtc)).toBe('21:05 (Asia/Tokyo)');
    expect(localTime('America/New_York', noonUtc)).toBe('07:05 (America/New_York)');
  });
  it('shows nothing for an unknown or invalid zone', () => {
    expect(localTime('', noonUtc)).toBeNull();
    expect(localTime('Mars/Olympus', noonUtc)).toBeNull();
  });
});
