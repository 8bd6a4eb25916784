import type { Env } from "../env";
import { setting } from "../settings/deployment-defaults";

/**
 * What one user may keep in the agent plane, from the deployment's settings (wrangler.toml
 * [vars], docs/agent.md#routines and docs/workspace.md#uploads); each default is written once, here.
 */
export interface AgentLimits {
	/** Routines per user, however made (the API, the dashboard, a routine file). */
	maxRoutines: number;
	/** The fewest minutes between two runs of a routine's cron (1 to 60). */
	cronFloorMinutes: number;
	/** Bytes of workspace uploads per user, across their workspaces. */
	uploadQuotaBytes: number;
	/** Uploaded files per user, across their workspaces. */
	uploadQuotaFiles: number;
}

export function agentLimits(env: Env): AgentLimits {
	return {
		maxRoutines: Math.max(1, setting(env, "MAX_ROUTINES_PER_USER")),
		cronFloorMinutes: Math.max(1, Math.min(60, setting(env, "ROUTINE_MIN_INTERVAL_MINUTES"))),
		uploadQuotaBytes: Math.max(0, setting(env, "WORKSPACE_UPLOAD_QUOTA_BYTES")),
		uploadQuotaFiles: Math.max(0, setting(env, "WORKSPACE_UPLOAD_QUOTA_FILES")),
	};
}
