import { z } from 'zod';
import { emailField, passwordField, requiredText } from './fields.js';

export const addMemberSchema = z.object({
  name: requiredText('Name is required'),
  email: emailField('Email is required', 'Please enter a valid email address'),
  password: passwordField('Password is required', 6, 'Password must be at least 6 characters'),
  role_id: z.coerce
    .number({ error: 'Role is required' })
    .int({ error: 'Role is required' })
    .positive({ error: 'Role is required' }),
});
export type AddMemberInput = z.input<typeof addMemberSchema>;

export const assignUsersSchema = z.object({
  user_ids: z
    .array(z.string({ error: 'Each user id must be text' }).max(64), { error: 'user_ids must be a list of user ids' })
    .max(1000, { error: 'At most 1000 users can be assigned at once' }),
});
export type AssignUsersInput = z.input<typeof assignUsersSchema>;

/** PATCH /api/vms/team/{id}: 'disabled' takes away attaching images (PRODUCT.md section 2). */
export const memberStatusSchema = z.object({
  status: z.enum(['active', 'disabled'], { error: "Status must be 'active' or 'disabled'" }),
});
