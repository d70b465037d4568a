import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { roles, users } from '../db/schema.js';
import { HttpError, isUniqueViolation } from '../errors.js';
import { hashPassword } from '../services/secrets.js';
import { emailTaken, emailTakenError } from '../services/users.js';

export interface AddTeamMemberInput {
  accountId: string;
  name: string;
  email: string;
  password: string;
  roleId: number;
}

const INVALID_ROLE = 'The selected role is invalid';
/** roles.id is a PostgreSQL integer: a larger number would make the query itself fail. */
const MAX_INT = 2_147_483_647;

/**
 * A team member of the account (type team_member, never is_admin), who signs in with the email
 * and password the owner chose. Refuses an unknown role (422) and a taken email (409).
 */
export async function addTeamMember(db: Db, input: AddTeamMemberInput): Promise<{ id: number }> {
  const [role] =
    input.roleId <= MAX_INT ? await db.select({ id: roles.id }).from(roles).where(eq(roles.id, input.roleId)) : [];
  if (!role) throw new HttpError(422, INVALID_ROLE, { role_id: [INVALID_ROLE] });
  if (await emailTaken(db, input.email)) throw emailTakenError();
  const passwordHash = await hashPassword(input.password);
  try {
    const [user] = await db
      .insert(users)
      .values({
        accountId: input.accountId,
        name: input.name,
        email: input.email,
        passwordHash,
        type: 'team_member',
        isAdmin: false,
        roleId: role.id,
      })
      .returning({ id: users.id });
    if (!user) throw new Error('user insert returned nothing');
    return user;
  } catch (e) {
    // Two requests for one email at once: the unique index decides.
    if (isUniqueViolation(e)) throw emailTakenError();
    throw e;
  }
}
