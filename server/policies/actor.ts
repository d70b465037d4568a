/** Who is calling: the signed-in console user, as the policies see them. */
export interface Actor {
  id: number;
  accountId: string;
  name: string;
  email: string;
  isAdmin: boolean;
  type: 'owner' | 'team_member';
  roleId: number | null;
  roleName: string | null;
  status: 'active' | 'disabled';
  createdAt: Date;
  tokenHash: string;
}

export const isOwner = (a: Actor): boolean => a.type === 'owner';
/** Owner, or a team member whose role is Admin. */
export const isAccountAdmin = (a: Actor): boolean => isOwner(a) || a.roleName === 'Admin';
