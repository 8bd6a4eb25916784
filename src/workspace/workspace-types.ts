/**
 * The contract between the Workspace object (durable-objects/workspace/index.ts) and those who use it:
 * the workspace routes, the agent's file tools, the meeting copilot and the git export.
 * A workspace is a real git repository (isomorphic-git over the object's SQLite storage).
 */

/** Who a commit is by: the user (from the users table), never a placeholder identity. */
export interface CommitAuthor {
	name: string;
	email: string;
}

/** One file written (`content` text) or removed (`content: null`) in a commit. */
export interface FileChange {
	path: string;
	content: string | null;
}

/**
 * Who asks for a write. `agent`: the model through its tools; policy paths and anything outside
 * the workspace are refused. `platform`: our own code (seeding, the copilot's meeting document).
 */
export type Writer = "agent" | "platform";

export interface CommitRequest {
	changes: FileChange[];
	message: string;
	author: CommitAuthor;
	by: Writer;
	/**
	 * The user whose turn made the commit. Each routine file it writes is recorded as theirs, and
	 * becomes a routine of that user only (durable-objects/agent-user/routine-files.ts); a routine file written
	 * without one (the platform, a clone) is nobody's routine.
	 */
	authorId?: number;
	/**
	 * The turn had read text other people wrote (src/agent/taint.ts): what it wrote may carry
	 * their words, so a later turn that reads these files is treated as having read them.
	 */
	tainted?: boolean;
}

/** Who last wrote each `routines/` file of a workspace; a file without a row has no known writer. */
export type RoutineAuthors = Record<string, number>;

/** Who last wrote a file through a user's commit, and whether that turn had read other people's words; a file without one has no known writer. */
export interface FileWriter {
	userId: number;
	tainted: boolean;
}

/** A finding of the Open Knowledge Format validator on `kg/` (one per non-conformant file). */
export interface KgFinding {
	path: string;
	problem: string;
}

export type CommitOutcome =
	/** `sha` null: nothing changed, so nothing was committed. */
	| { ok: true; sha: string | null; files: string[]; findings: KgFinding[]; routinesTouched: boolean }
	/** Refused by governance: nothing of the request landed. */
	| { ok: false; violations: string[] };

export interface CommitInfo {
	sha: string;
	msg: string;
	/** ISO time of the commit. */
	when: string;
	author: string;
	/** `you`: the owner; `member`: another member of a shared workspace; `system`: the platform. */
	kind: "you" | "member" | "system";
	files: string[];
	/** Seconds since the epoch, as git keeps it. */
	ts: number;
}

export interface GitSummary {
	branch: string;
	/** Paths that differ from the last commit (uncommitted work; uploads are not in git). */
	changes: string[];
	commits: CommitInfo[];
	/** The validator's findings on `kg/` as it stands. */
	kg_findings: KgFinding[];
}

export interface InitOutcome {
	workspace: string;
	seeded: boolean;
	already_initialized: boolean;
}

export interface SearchHit {
	path: string;
	line: number;
	text: string;
}

/** An upload already stored in R2 by the route, to be listed in the tree (src/workspace/uploads.ts). */
export interface StoredUpload {
	name: string;
	/** `uploads/<sha256 prefix>-<name>`: how the tree lists it and routes and tools name it. */
	path: string;
	size: number;
	/** Its object in WORKSPACE_FILES; null for uploads stored before streaming, kept under `<workspace>/<path>`. */
	key: string | null;
	content_type: string | null;
	/** UTF-8 without NUL throughout; null when not known (stored before this was recorded). */
	text: boolean | null;
}

/** Bytes and files of uploads kept. */
export interface UploadUsage {
	bytes: number;
	files: number;
}

export type AddUploadsOutcome =
	/** Listed; `replaced` are the earlier uploads at the same paths, whose objects are now unused. */
	| { ok: true; replaced: StoredUpload[] }
	/** Past the allowance: nothing was listed. `used` is what the workspace keeps. */
	| { ok: false; used: UploadUsage };
