/**
 * What one clone of an external repository (`swap`) may cost: bytes read from the host, what
 * its pack unpacks to (in all and per object, as the pack declares it before anything is
 * inflated), objects, files checked out, and time. Deployment settings override each default
 * (src/settings/deployment-defaults.ts; docs/workspace.md, Attached repositories and swap).
 */
import type { Env } from "../../src/env";
import { DEPLOYMENT_DEFAULTS, setting } from "../../src/settings/deployment-defaults";

export interface CloneLimits {
	/** Everything read from the remote, all requests together. */
	maxBytes: number;
	/** What the pack's objects unpack to, all together; the checked-out files together too. */
	maxUnpackedBytes: number;
	/** One object unpacked (a file, or a tree or commit). */
	maxFileBytes: number;
	/** Objects in the pack. */
	maxObjects: number;
	/** Files and directories the checkout writes. */
	maxFiles: number;
	/** The whole clone: fetch, index and checkout. */
	timeoutMs: number;
}

const MB = 1024 * 1024;
const D = DEPLOYMENT_DEFAULTS;

export const DEFAULT_CLONE_LIMITS: CloneLimits = {
	maxBytes: D.WORKSPACE_CLONE_MAX_DOWNLOAD_BYTES,
	maxUnpackedBytes: D.WORKSPACE_CLONE_MAX_UNPACKED_BYTES,
	maxFileBytes: D.WORKSPACE_CLONE_MAX_FILE_BYTES,
	maxObjects: D.WORKSPACE_CLONE_MAX_OBJECTS,
	maxFiles: D.WORKSPACE_CLONE_MAX_FILES,
	timeoutMs: D.WORKSPACE_CLONE_TIMEOUT_S * 1000,
};

/** The deployment's limits: each setting, else its default. */
export function cloneLimits(env: Env): CloneLimits {
	return {
		maxBytes: setting(env, "WORKSPACE_CLONE_MAX_DOWNLOAD_BYTES"),
		maxUnpackedBytes: setting(env, "WORKSPACE_CLONE_MAX_UNPACKED_BYTES"),
		maxFileBytes: setting(env, "WORKSPACE_CLONE_MAX_FILE_BYTES"),
		maxObjects: setting(env, "WORKSPACE_CLONE_MAX_OBJECTS"),
		maxFiles: setting(env, "WORKSPACE_CLONE_MAX_FILES"),
		timeoutMs: setting(env, "WORKSPACE_CLONE_TIMEOUT_S") * 1000,
	};
}

/**
 * Why a clone was stopped, said to the client as is: 413 when the repository is past one of
 * the limits (the detail names which), 502 when the remote misbehaved.
 */
export class CloneRefusal extends Error {
	constructor(
		message: string,
		readonly status: 413 | 502,
	) {
		super(message);
	}
}

export const tooLarge = (detail: string) => new CloneRefusal(detail, 413);

export function formatBytes(n: number): string {
	if (n >= MB) return `${Math.round((n / MB) * 10) / 10} MB`;
	return n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`;
}

export const formatCount = (n: number) => n.toLocaleString("en-US");
