/**
 * What one clone of an external repository (`swap`) may cost: bytes read from the host, what
 * its pack unpacks to (in all and per object, as the pack declares it before anything is
 * inflated), objects, files checked out, and time. Deployment settings override each default
 * here (docs/workspace.md, Attached repositories and swap).
 */
import { type Env, intVar } from "../../src/env";

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

export const DEFAULT_CLONE_LIMITS: CloneLimits = {
	maxBytes: 30 * MB,
	maxUnpackedBytes: 100 * MB,
	maxFileBytes: 25 * MB,
	maxObjects: 20_000,
	maxFiles: 10_000,
	timeoutMs: 60_000,
};

/** The deployment's limits: each setting, else its default. */
export function cloneLimits(env: Env): CloneLimits {
	const d = DEFAULT_CLONE_LIMITS;
	return {
		maxBytes: intVar(env.WORKSPACE_CLONE_MAX_DOWNLOAD_BYTES, d.maxBytes),
		maxUnpackedBytes: intVar(env.WORKSPACE_CLONE_MAX_UNPACKED_BYTES, d.maxUnpackedBytes),
		maxFileBytes: intVar(env.WORKSPACE_CLONE_MAX_FILE_BYTES, d.maxFileBytes),
		maxObjects: intVar(env.WORKSPACE_CLONE_MAX_OBJECTS, d.maxObjects),
		maxFiles: intVar(env.WORKSPACE_CLONE_MAX_FILES, d.maxFiles),
		timeoutMs: intVar(env.WORKSPACE_CLONE_TIMEOUT_S, d.timeoutMs / 1000) * 1000,
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
