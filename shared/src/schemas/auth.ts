import { z } from 'zod';
import { emailField, passwordField, requiredText } from './fields.js';

/**
 * "<confirm> must equal <field>", checked beside the object's own fields rather than after them:
 * zod skips an object-level refine once a field has failed, and the form and the server's 422
 * must show every field's error at once. Intersect it with the object schema.
 */
function sameAs<F extends string, C extends string>(field: F, confirm: C, message: string) {
  const shape = { [field]: z.unknown(), [confirm]: z.unknown() } as Record<F | C, z.ZodUnknown>;
  return z
    .object(shape)
    .refine((v: Record<string, unknown>) => typeof v[field] !== 'string' || typeof v[confirm] !== 'string' || !v[field] || !v[confirm] || v[field] === v[confirm], {
      path: [confirm],
      error: message,
    });
}

export const registerSchema = z.intersection(
  z.object({
    name: requiredText('Name is required').pipe(
      z.string().min(2, { error: 'Name must be at least 2 characters' }),
    ),
    email: emailField('Email is required', 'Please enter a valid email address'),
    password: passwordField('Password is required', 8, 'Password must be at least 8 characters'),
    password_confirmation: z
      .string({ error: 'Please confirm your password' })
      .min(1, { error: 'Please confirm your password' }),
  }),
  sameAs('password', 'password_confirmation', 'Passwords do not match'),
);
export type RegisterInput = z.input<typeof registerSchema>;

export const loginSchema = z.object({
  email: emailField('Email is required', 'Email is invalid'),
  password: z.string({ error: 'Password is required' }).min(1, { error: 'Password is required' }).max(1024),
});
export type LoginInput = z.input<typeof loginSchema>;

export const profileSchema = z.object({
  name: requiredText('Name is required'),
  email: emailField('Email is required', 'Please enter a valid email address'),
});
export type ProfileInput = z.input<typeof profileSchema>;

export const passwordChangeSchema = z.intersection(
  z.object({
    current: z.string({ error: 'Current password is required' }).min(1, { error: 'Current password is required' }).max(1024),
    new: passwordField('New password is required', 6, 'New password must be at least 6 characters'),
    confirm: z.string({ error: 'Please confirm your new password' }).min(1, { error: 'Please confirm your new password' }),
  }),
  sameAs('new', 'confirm', 'New passwords do not match'),
);
export type PasswordChangeInput = z.input<typeof passwordChangeSchema>;

/** SPEC.md section 5: register strength meter, 0 to 5. */
export function registerPasswordScore(password: string): number {
  let score = 0;
  if (password.length >= 8) score++;
  if (/[A-Z]/.test(password)) score++;
  if (/[a-z]/.test(password)) score++;
  if (/\d/.test(password)) score++;
  if (/[^A-Za-z0-9]/.test(password)) score++;
  return score;
}
export function registerPasswordLabel(score: number): string {
  if (score <= 1) return 'Very Weak';
  return ['Weak', 'Fair', 'Good', 'Strong'][Math.min(score, 5) - 2] ?? 'Strong';
}

/** SPEC.md section 5: settings strength indicator, steps of 25. */
export function settingsPasswordStrength(password: string): { score: number; label: string } {
  let score = 0;
  if (password.length >= 8) score += 25;
  if (/[A-Z]/.test(password)) score += 25;
  if (/\d/.test(password)) score += 25;
  if (/[^A-Za-z0-9]/.test(password)) score += 25;
  const label = score <= 25 ? 'Weak' : score <= 50 ? 'Fair' : score <= 75 ? 'Good' : 'Strong';
  return { score, label };
}
