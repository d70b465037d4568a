import { useState } from 'react';
import type { z } from 'zod';
import { ApiError, serverError } from './api';

/** Field -> first message. */
export type FormErrors<K extends string = string> = Partial<Record<K, string>>;

/**
 * How errors are keyed: by top-level field (the default: `scopes.0` counts as `scopes`), or with
 * `paths`, by the whole path (`hours.mon.0.open`; an error of the whole value is `_`), for a form
 * whose fields are nested.
 */
export interface ErrorKeys {
  paths?: boolean;
}

const keyOf = (path: readonly PropertyKey[], opts: ErrorKeys | undefined): string =>
  (opts?.paths ? path.map(String).join('.') : String(path[0] ?? '')) || '_';

/**
 * Validates with a shared zod schema (the same one the server uses) and returns either the
 * parsed data or the first message per field, so form and API reject input with one text.
 */
export function validate<S extends z.ZodType>(schema: S, values: unknown, opts?: ErrorKeys): { ok: true; data: z.output<S> } | { ok: false; errors: FormErrors } {
  const res = schema.safeParse(values);
  if (res.success) return { ok: true, data: res.data };
  const errors: FormErrors = {};
  for (const issue of res.error.issues) {
    const key = keyOf(issue.path, opts);
    if (!errors[key]) errors[key] = issue.message;
  }
  return { ok: false, errors };
}

/** First message of each field of a server 422 `errors` map (keyed as `validate` keys them). */
export function firstErrors(errors: Record<string, string[]> | undefined, opts?: ErrorKeys): FormErrors {
  const out: FormErrors = {};
  if (!errors) return out;
  for (const [k, v] of Object.entries(errors)) {
    const field = keyOf(k.split('.'), opts);
    if (v?.[0] && !out[field]) out[field] = v[0];
  }
  return out;
}

/**
 * A form's submit with a shared schema: invalid input shows its field errors and sends nothing;
 * valid input is sent (`busy` meanwhile); a refusal puts the server's field errors on their
 * fields and its message (or `failure`) in `error`. `submit` resolves true once sent. Errors are
 * keyed by top-level field, or with `{ paths: true }` by their whole path (ErrorKeys).
 */
export function useSubmit(setErrors: (errors: FormErrors) => void, opts?: ErrorKeys) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const submit = async <S extends z.ZodType>(schema: S, values: unknown, send: (data: z.output<S>) => Promise<unknown>, failure: string): Promise<boolean> => {
    setError('');
    const parsed = validate(schema, values, opts);
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
      if (err instanceof ApiError && err.errors) setErrors(firstErrors(err.errors, opts));
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
