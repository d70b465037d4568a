import type { TeamMemberDto } from '@parley/shared';

export interface TeamMemberRow {
  id: number;
  name: string;
  email: string;
  roleId: number | null;
  roleName: string | null;
  status: 'active' | 'disabled';
}

export interface AssignedVisitorRow {
  visitorId: string;
  visitorName: string;
}

/** A visitor who never gave a name is shown as the console shows them everywhere else. */
export const visitorDisplayName = (name: string): string => name.trim() || 'Anonymous';

/** A website user (a visitor with a conversation) as the team screens list them. */
export function presentAssignableUser(row: AssignedVisitorRow): { id: string; name: string } {
  return { id: row.visitorId, name: visitorDisplayName(row.visitorName) };
}

export function presentTeamMember(member: TeamMemberRow, assigned: AssignedVisitorRow[]): TeamMemberDto {
  return {
    id: member.id,
    name: member.name,
    email: member.email,
    // Members are always created with a role; a null one (role row removed by hand) still presents.
    role: { id: member.roleId ?? 0, name: member.roleName ?? '' },
    status: member.status,
    assigned_users: assigned.map(presentAssignableUser),
  };
}
