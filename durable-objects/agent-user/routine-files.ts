import type { AgentCaller } from "../../src/agent/caller";
import { checkRoutineCron } from "../../src/agent/cron";
import type { Finding } from "../../src/agent/frames";
import type { Env } from "../../src/env";
import { workspaceObject } from "../../src/objects";
import { parseFrontmatter } from "../../src/workspace/okf";
import type { Routines } from "./routines";
import { AGENT_USER_STORAGE } from "./storage";

const TABLES = AGENT_USER_STORAGE.tables;

/** `routines/<name>.md`, directly in the folder; README.md there documents the folder and is no routine. */
const ROUTINE_FILE = /^routines\/([^/]+)\.md$/;
const MAX_PROMPT = 8000;

/** What a routine file asks for, or why it asks nothing runnable. */
type FileRoutine = { ok: true; name: string; cron: string; prompt: string; enabled: boolean } | { ok: false; problem: string };

export function routineFileName(path: string): string | null {
	const name = path.match(ROUTINE_FILE)?.[1];
	if (!name || name.toLowerCase() === "readme") return null;
	return name;
}

/** A routine file's frontmatter `enabled` (default true), `cron` and `prompt`, with the body appended to the prompt. */
export function readRoutineFile(name: string, text: string, cronFloor: number): FileRoutine {
	const parsed = parseFrontmatter(text);
	const data: Record<string, string | undefined> = parsed?.data ?? {};
	const body = (parsed ? parsed.body : text).trim();
	const cron = data.cron?.trim() ?? "";
	if (!cron) return { ok: false, problem: "no cron in the frontmatter" };
	const check = checkRoutineCron(cron, cronFloor);
	if (!check.ok) return { ok: false, problem: `cron: ${check.detail}` };
	const asked = data.prompt?.trim() ?? "";
	const prompt = [asked, body].filter(Boolean).join("\n\n");
	if (!prompt) return { ok: false, problem: "no prompt: give prompt in the frontmatter or a body" };
	if (prompt.length > MAX_PROMPT) return { ok: false, problem: `the prompt is longer than ${MAX_PROMPT} characters` };
	return { ok: true, name, cron: check.expression, prompt, enabled: data.enabled?.trim().toLowerCase() !== "false" };
}

/**
 * Routines kept as files of a workspace (docs/workspace.md#routines-as-files): after a commit
 * touches `routines/`, each `routines/<name>.md` the committing user wrote is their routine
 * `<name>`, created or updated with the rights of the key that made the commit; a file gone (or
 * since written by someone else) removes its routine; a file that asks nothing runnable is a
 * finding, and the commit stands. The Workspace object records who wrote each routine file, so
 * in a shared workspace a file another member wrote never becomes this user's routine. A turn
 * may follow someone else's words, so what it writes waits for the user's confirmation
 * (Routines.fromTurn). Which routine came from which file is kept here, so a routine made
 * through the API is never taken over or removed.
 */
export class RoutineFiles {
	constructor(
		private readonly storage: DurableObjectStorage,
		private readonly env: Env,
		private readonly routines: Routines,
		/** The most routines one user may have (MAX_ROUTINES_PER_USER); a file past it is a finding. */
		private readonly maxRoutines: number,
		/** The fewest minutes between two runs (ROUTINE_MIN_INTERVAL_MINUTES). */
		private readonly cronFloor: number,
	) {
		storage.sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLES.routineFiles} (
			workspace TEXT NOT NULL, path TEXT NOT NULL, routine_id TEXT NOT NULL, PRIMARY KEY (workspace, path))`);
		this.holdUnconfirmed();
	}

	/**
	 * Routines made from files before writers were recorded and confirmations asked for may carry
	 * another member's words (docs/workspace.md#routines-as-files): each waits, disabled, for its
	 * user's confirmation. Only those: once held (or confirmed) a routine is not matched again.
	 */
	private holdUnconfirmed(): void {
		const unconfirmed = this.storage.sql
			.exec<{ routine_id: string; path: string }>(
				`SELECT f.routine_id, f.path FROM ${TABLES.routineFiles} f JOIN ${TABLES.routines} r ON r.id = f.routine_id
				WHERE r.confirmed IS NULL AND r.confirm_reason IS NULL`,
			)
			.toArray();
		for (const { routine_id, path } of unconfirmed)
			this.routines.hold(routine_id, `It was made from ${path} before routine files recorded who wrote them`);
	}

	async sync(caller: AgentCaller, workspace: string): Promise<Finding[]> {
		const object = workspaceObject(this.env, workspace);
		const [tree, authors] = await Promise.all([object.tree(false), object.routineAuthors()]);
		const paths = tree.filter((path) => routineFileName(path) !== null);
		const known = new Map(
			this.storage.sql
				.exec<{ path: string; routine_id: string }>(`SELECT path, routine_id FROM ${TABLES.routineFiles} WHERE workspace = ?`, workspace)
				.toArray()
				.map((row) => [row.path, row.routine_id]),
		);
		const byName = new Map((await this.routines.list()).map((r) => [r.name, r.id]));
		const findings: Finding[] = [];
		const kept = new Set<string>();
		for (const path of paths) {
			const writer = authors[path];
			if (writer !== caller.userId) {
				findings.push({ path, problem: notYours(writer, known.has(path)) });
				continue;
			}
			const file = await object.read(path);
			const routine = readRoutineFile(routineFileName(path) as string, file?.content ?? "", this.cronFloor);
			if (!routine.ok) {
				findings.push({ path, problem: routine.problem });
				continue;
			}
			const existing = byName.get(routine.name);
			if (existing !== undefined && existing !== known.get(path)) {
				findings.push({
					path,
					problem: `a routine named ${routine.name} already exists (made through the API or from another workspace); rename the file`,
				});
				continue;
			}
			const refused = this.routines.refusal(routine.name, this.maxRoutines);
			if (refused) {
				findings.push({ path, problem: `not a routine: ${refused}` });
				continue;
			}
			const made = await this.routines.fromTurn(
				caller,
				{ name: routine.name, cron: routine.cron, prompt: routine.prompt },
				routine.enabled,
				path,
			);
			if (made.confirmation_reason) findings.push({ path, problem: made.confirmation_reason });
			this.storage.sql.exec(
				`INSERT INTO ${TABLES.routineFiles} (workspace, path, routine_id) VALUES (?, ?, ?) ON CONFLICT (workspace, path) DO UPDATE SET routine_id = excluded.routine_id`,
				workspace,
				path,
				made.id,
			);
			kept.add(path);
		}
		// A file gone, no longer runnable or no longer this user's: its routine goes too, so the files stay the truth.
		for (const [path, routineId] of known) {
			if (kept.has(path)) continue;
			await this.routines.remove(routineId);
			this.storage.sql.exec(`DELETE FROM ${TABLES.routineFiles} WHERE workspace = ? AND path = ?`, workspace, path);
		}
		return findings;
	}
}

/** Why a routine file is not the syncing user's routine; `hadRoutine`: their routine from it is removed now. */
function notYours(writer: number | undefined, hadRoutine: boolean): string {
	const why =
		writer === undefined
			? "no turn of yours wrote this file here (it came with a clone, or before writers were recorded): not your routine; write it from your own turn to make it yours"
			: "written by another member of this workspace: not your routine";
	return hadRoutine ? `${why}; the routine you had from it was removed` : why;
}
