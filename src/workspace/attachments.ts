import type { Env } from "../env";
import { homeWorkspace } from "./workspace-names";

/**
 * SKELETON (h-wire): which workspace is a user's active one. Until `swap` attaches an external
 * repository it is their home workspace.
 */
export async function activeWorkspace(_env: Env, userId: number): Promise<string> {
	return homeWorkspace(userId);
}
