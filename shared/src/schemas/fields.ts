import { z } from 'zod';
import { MAX_EMAIL, MAX_NAME } from '../limits.js';

/** A text field that must not be blank (whitespace-only counts as empty); trimmed. */
export const requiredText = (message: string, max = MAX_NAME, maxMessage?: string) =>
  z
    .string({ error: message })
    .trim()
    .min(1, { error: message, abort: true })
    .max(max, { error: maxMessage ?? `Must be at most ${max} characters` });

/** An optional text field: absent, null and blank all mean "not given" (stored as ''). */
export const optionalText = (max: number, maxMessage?: string) =>
  z
    .string({ error: 'Must be text' })
    .trim()
    .max(max, { error: maxMessage ?? `Must be at most ${max} characters` })
    .nullish()
    .transform((v) => v ?? '');

export const emailField = (requiredMessage: string, invalidMessage: string) =>
  z
    .string({ error: requiredMessage })
    .trim()
    .min(1, { error: requiredMessage, abort: true })
    .max(MAX_EMAIL, { error: invalidMessage, abort: true })
    .regex(z.regexes.email, { error: invalidMessage });

/** A password is never trimmed: spaces are characters like any other. */
export const passwordField = (requiredMessage: string, min: number, minMessage: string) =>
  z
    .string({ error: requiredMessage })
    .min(1, { error: requiredMessage, abort: true })
    .min(min, { error: minMessage, abort: true })
    .max(1024, { error: 'Password must be at most 1024 characters' });

export const hexColor = z
  .string({ error: 'Please choose a valid color' })
  .trim()
  .regex(/^#[0-9a-fA-F]{6}$/, { error: 'Please choose a valid color' });
