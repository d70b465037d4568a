import { useState } from 'react';
import type { z } from 'zod';
import { ApiError, serverError } from './api';

/** Field -> first message. */
export type FormErrors<K extends string = string> = Partial<Record<K, string>>;

/**
 * Validates with a shared zod schema (the same one the server uses) and returns either the
 * parsed data or the first message per field, so form and API reject input with one text.
 */
export function validate<S extends z.ZodType>(schema: S, values: unknown): { ok: true; data: z.output<S> } | { ok: false; errors: FormErrors } {
  const res = schema.safeParse(values);
  if (res.success) return { ok: true, data: res.data };
  const errors: FormErrors = {};
  for (const issue of res.error.issues) {
    const key = String(issue.path[0] ?? '_');
    if (!errors[key]) errors[key] = issue.message;
  }
  return { ok: false, errors };
}

/** First message of each field of a server 422 `errors` map (`scopes.0` counts as `scopes`). */
export function firstErrors(errors: Record<string, string[]> | undefined): FormErrors {
  const out: FormErrors = {};
  if (!errors) return out;
  for (const [k, v] of Object.entries(errors)) {
    const field = k.split('.')[0] ?? k;
    if (v?.[0] && !out[field]) out[field] = v[0];
  }
  return out;
}

/**
 * A form's submit with a shared schema: invalid input shows its field errors and sends nothing;
 * valid input is sent (`busy` meanwhile); a refusal puts the server's field errors on their
 * fields and its message (or `failure`) in `error`. `submit` resolves true once sent.
 */
export function useSubmit(setErrors: (errors: FormErrors) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const submit = async <S extends z.ZodType>(schema: S, values: unknown, send: (data: z.output<S>) => Promise<unknown>, failure: string): Promise<boolean> => {
    setError('');
    const parsed = validate(schema, values);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return false;
    }
    setErrors({});
    setBusy(true);
    try {
      await send(parsed.data);
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.errors) setErrors(firstErrors(err.errors));
      setError(serverError(err, failure));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, submit };
}

/**
 * A form's values and per-field errors. Editing a field clears its error (SPEC.md section 5);
 * `errors` is filled from `validate` or from the server's field errors.
 */
export function useFormFields<V extends Record<string, string>>(initial: V) {
  const [values, setValues] = useState<V>(initial);
  const [errors, setErrors] = useState<FormErrors<Extract<keyof V, string>>>({});
  const set = (k: Extract<keyof V, string>, v: string) => {
    setValues((s) => ({ ...s, [k]: v }));
    setErrors((e) => (e[k] ? { ...e, [k]: undefined } : e));
  };
  return { values, setValues, errors, setErrors, set };
}
