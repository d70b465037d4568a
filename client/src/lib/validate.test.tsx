// @vitest-environment happy-dom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from './api';
import { type ErrorKeys, type FormErrors, firstErrors, useSubmit, validate } from './validate';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// A form with a flat field and a nested list, like the business hours (hours.mon.0.open).
const schema = z.object({
  name: z.string().min(1, { error: 'Name is required' }),
  hours: z.object({ mon: z.array(z.object({ open: z.string().regex(/^\d\d:\d\d$/, { error: 'Bad time' }), close: z.string().regex(/^\d\d:\d\d$/, { error: 'Bad time' }) })) }),
});
const bad = { name: '', hours: { mon: [{ open: '09:00', close: '9' }, { open: 'x', close: 'y' }] } };

describe('validate and firstErrors', () => {
  it('key errors by top-level field by default, the first message of each (as every form so far reads them)', () => {
    expect(validate(schema, bad)).toEqual({ ok: false, errors: { name: 'Name is required', hours: 'Bad time' } });
    expect(firstErrors({ 'scopes.0': ['Unknown scope'], 'scopes.1': ['Other'], name: ['Taken', 'Short'] })).toEqual({ scopes: 'Unknown scope', name: 'Taken' });
  });

  it('with paths, keep every nested field apart, and the whole value as _', () => {
    expect(validate(schema, bad, { paths: true })).toEqual({
      ok: false,
      errors: { name: 'Name is required', 'hours.mon.0.close': 'Bad time', 'hours.mon.1.open': 'Bad time', 'hours.mon.1.close': 'Bad time' },
    });
    expect(validate(z.string().min(2, { error: 'Too short' }), 'a', { paths: true })).toEqual({ ok: false, errors: { _: 'Too short' } });
    expect(firstErrors({ 'hours.tue.1.open': ['Overlap', 'Other'], hours: ['No day'], _: ['Whole'] }, { paths: true })).toEqual({ 'hours.tue.1.open': 'Overlap', hours: 'No day', _: 'Whole' });
  });
});

describe('useSubmit', () => {
  /** Runs one submit of `values` through the hook, the server answering with `refusal` (or success). */
  async function run(values: unknown, refusal: ApiError | null, opts?: ErrorKeys) {
    const seen: FormErrors[] = [];
    let submit!: ReturnType<typeof useSubmit>['submit'];
    let sent = 0;
    function Form() {
      ({ submit } = useSubmit((e) => seen.push(e), opts));
      return null;
    }
    const root = createRoot(document.createElement('div'));
    await act(async () => root.render(<Form />));
    let ok = false;
    await act(async () => {
      ok = await submit(
        schema,
        values,
        async () => {
          sent++;
          if (refusal) throw refusal;
        },
        'Failed',
      );
    });
    act(() => root.unmount());
    return { ok, sent, errors: seen.at(-1) };
  }
  const refusal = new ApiError('Overlap', { status: 422, error: 'Overlap', errors: { 'hours.mon.1.open': ['Overlap'] } });
  const good = { name: 'Acme', hours: { mon: [{ open: '09:00', close: '12:00' }, { open: '11:00', close: '17:00' }] } };

  it("keeps a server refusal's nested field with paths, its top-level field without", async () => {
    expect(await run(good, refusal, { paths: true })).toEqual({ ok: false, sent: 1, errors: { 'hours.mon.1.open': 'Overlap' } });
    expect(await run(good, refusal)).toEqual({ ok: false, sent: 1, errors: { hours: 'Overlap' } });
  });

  it('sends nothing when the schema refuses, with the errors keyed the same way', async () => {
    expect(await run(bad, null, { paths: true })).toMatchObject({ ok: false, sent: 0, errors: { 'hours.mon.1.open': 'Bad time' } });
    expect(await run(bad, null)).toEqual({ ok: false, sent: 0, errors: { name: 'Name is required', hours: 'Bad time' } });
    expect(await run(good, null, { paths: true })).toEqual({ ok: true, sent: 1, errors: {} });
  });
});
