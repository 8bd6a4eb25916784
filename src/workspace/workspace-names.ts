/**
 * Workspace objects are named by kind, so no name of one kind can be chosen to reach another:
 * a user's home (seed) workspace, a shared workspace (`workspace_members` in D1), or an external
 * repository a user attached with `swap`.
 */
export const homeWorkspace = (userId: number): string => `home:${userId}`;
export const sharedWorkspace = (workspaceId: string): string => `shared:${workspaceId}`;
export const attachedWorkspace = (userId: number, key: string): string => `repo:${userId}:${key}`;
