import { describe, expect, it } from 'vitest';
import { parseLocalDateTime, toLocalInput } from './snooze';

describe('parseLocalDateTime', () => {
  const now = new Date('2024-03-06T15:20:00');
  it('accepts a future date-time and refuses a past, empty or malformed one', () => {
    expect(parseLocalDateTime('2024-03-08T10:30', now)?.getTime()).toBe(new Date('2024-03-08T10:30:00').getTime());
    expect(parseLocalDateTime('2024-03-01T10:30', now)).toBeNull();
    expect(parseLocalDateTime('', now)).toBeNull();
    expect(parseLocalDateTime('tomorrow', now)).toBeNull();
  });
  it('round-trips the input value in local time', () => {
    expect(toLocalInput(new Date('2024-03-08T07:05:00'))).toBe('2024-03-08T07:05');
    expect(toLocalInput(parseLocalDateTime('2024-12-31T23:59', now)!)).toBe('2024-12-31T23:59');
  });
});
