import { describe, expect, it } from 'vitest';
import { confidenceLabel, confidenceLevel, firstFiveWords, initial, minutesAgo, plural, preview, shortDateTime, visitorName } from './format';

describe('shortDateTime', () => {
  it('formats month, day, hour and minute in US style', () => {
    const d = new Date(2024, 2, 5, 14, 7);
    expect(shortDateTime(d)).toMatch(/^Mar 5, 02:07\sPM$/);
  });
  it("gives 'N/A' for missing or invalid input", () => {
    expect(shortDateTime(null)).toBe('N/A');
    expect(shortDateTime('')).toBe('N/A');
    expect(shortDateTime('not a date')).toBe('N/A');
  });
});

describe('minutesAgo', () => {
  const now = Date.parse('2024-01-01T12:00:00Z');
  it('counts whole minutes', () => {
    expect(minutesAgo('2024-01-01T11:50:00Z', now)).toBe('10 minutes ago');
    expect(minutesAgo('2024-01-01T11:59:00Z', now)).toBe('1 minute ago');
    expect(minutesAgo('2024-01-01T11:59:30Z', now)).toBe('just now');
  });
  it('switches to hours and days', () => {
    expect(minutesAgo('2024-01-01T09:00:00Z', now)).toBe('3 hours ago');
    expect(minutesAgo('2023-12-30T12:00:00Z', now)).toBe('2 days ago');
  });
});

describe('preview', () => {
  it('keeps text of 50 characters or fewer', () => {
    expect(preview('a'.repeat(50))).toBe('a'.repeat(50));
  });
  it("cuts longer text to 50 characters plus '...'", () => {
    expect(preview('b'.repeat(51))).toBe(`${'b'.repeat(50)}...`);
  });
  it("says 'No message' when empty", () => {
    expect(preview('')).toBe('No message');
    expect(preview(null)).toBe('No message');
  });
});

describe('firstFiveWords', () => {
  it('keeps at most five words', () => {
    expect(firstFiveWords('one two three four five six seven')).toBe('one two three four five');
    expect(firstFiveWords('  Ada   Lovelace ')).toBe('Ada Lovelace');
  });
  it("falls back to 'User'", () => {
    expect(firstFiveWords('')).toBe('User');
    expect(firstFiveWords(undefined)).toBe('User');
    expect(firstFiveWords('   ')).toBe('User');
  });
});

describe('initial and visitor names', () => {
  it('uppercases the first letter, or A', () => {
    expect(initial('bob')).toBe('B');
    expect(initial('')).toBe('A');
    expect(initial(null)).toBe('A');
  });
  it("names anonymous visitors 'Anonymous'", () => {
    expect(visitorName('')).toBe('Anonymous');
    expect(visitorName(' Jo ')).toBe('Jo');
  });
});

describe('confidence', () => {
  it('uses 0.8 and 0.6 thresholds', () => {
    expect(confidenceLevel(0.8)).toBe('High');
    expect(confidenceLevel(0.79)).toBe('Medium');
    expect(confidenceLevel(0.6)).toBe('Medium');
    expect(confidenceLevel(0.59)).toBe('Low');
    expect(confidenceLevel(undefined)).toBe('Low');
  });
  it('shows a percentage', () => {
    expect(confidenceLabel(0.856)).toBe('High (86%)');
    expect(confidenceLabel(0.1)).toBe('Low (10%)');
  });
});

describe('plural', () => {
  it('picks singular or plural', () => {
    expect(plural(1, 'new message', 'new messages')).toBe('1 new message');
    expect(plural(3, 'new message', 'new messages')).toBe('3 new messages');
  });
});
