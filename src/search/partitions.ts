import type { Env } from "../env";
import { ApiError } from "../errors";
import { setting } from "../settings/deployment-defaults";
import type { PartitionAnswer, PartitionFilters, PartitionQuery, RankedHit } from "./partition-query";

/**
 * Raw SQL store (a UNION over memberships and meetings, and `search_changes`, which drizzle does not mirror).
 * Which search partitions a reader searches, and one search across them (docs/api.md#search).
 * A meeting's scope is its workspace when it is bound to one, else its owner
 * (migrations/0016_search_partitions.sql), so a reader searches their own scope and each
 * workspace they are a member of, and every row of those partitions is one they may read.
 */

export interface Partition {
	scope: string;
	/** Set for a workspace the reader is not a member of but owns meetings in: those meetings only. */
	owner?: number;
}

export async function partitionsOf(env: Env, userId: number): Promise<Partition[]> {
	const { results } = await env.DB.prepare(
		`SELECT workspace_id, 1 AS member FROM workspace_members WHERE user_id = ?1
		UNION SELECT DISTINCT workspace_id, 0 AS member FROM meetings WHERE user_id = ?1 AND workspace_id IS NOT NULL
			AND workspace_id NOT IN (SELECT workspace_id FROM workspace_members WHERE user_id = ?1)`,
	)
		.bind(userId)
		.all<{ workspace_id: string; member: number }>();
	const workspaces = results.map((row) => ({ scope: `w:${row.workspace_id}`, ...(row.member ? {} : { owner: userId }) }));
	return [{ scope: `u:${userId}` }, ...workspaces];
}

export interface RankedPage {
	total: number;
	/** The page, best first, each with its marked snippet. */
	hits: (RankedHit & { marked: string })[];
}

/**
 * One page of the matches across partitions, merged by score (ties to the older segment). With
 * one partition the page is ranked there; with several each ranks its first `skip + take`, and
 * the page's snippets are asked of the partitions that hold them. 503 with Retry-After past the
 * time budget, or while a partition is still loading its transcripts.
 */
export async function searchPartitions(
	env: Env,
	partitions: Partition[],
	match: string,
	filters: PartitionFilters,
	skip: number,
	take: number,
): Promise<RankedPage> {
	const deadline = Date.now() + setting(env, "SEARCH_TIME_BUDGET_MS");
	const one = partitions.length === 1;
	const query = (p: Partition): PartitionQuery => ({
		scope: p.scope,
		match,
		filters: p.owner === undefined ? filters : { ...filters, owner: p.owner },
		skip: one ? skip : 0,
		take: one ? take : skip + take,
		snippets: one,
	});
	const answers = await withinBudget(deadline, Promise.all(partitions.map((p) => indexOf(env, p.scope).search(query(p)))));
	const ready = answers.map(readyOrRetry);
	const total = ready.reduce((sum, answer) => sum + answer.total, 0);
	if (one) return { total, hits: (ready[0]?.hits ?? []).map((hit) => ({ ...hit, marked: hit.marked ?? "" })) };

	const merged = ready
		.flatMap((answer, at) => answer.hits.map((hit) => ({ ...hit, at })))
		.sort((a, b) => a.score - b.score || a.id - b.id)
		.slice(skip, skip + take);
	const marked = new Map<number, string>();
	const holders = [...new Set(merged.map((hit) => hit.at))];
	const snippets = await withinBudget(
		deadline,
		Promise.all(
			holders.map((at) =>
				indexOf(env, partitions[at]?.scope ?? "").snippets(
					match,
					merged.filter((hit) => hit.at === at).map((hit) => hit.id),
				),
			),
		),
	);
	for (const row of snippets.flat()) marked.set(row.id, row.marked);
	return { total, hits: merged.map(({ id, score }) => ({ id, score, marked: marked.get(id) ?? "" })) };
}

/** Per cron tick: partitions with changes logged catch up without waiting for a search (a removed user's never comes). */
const NUDGED_PER_TICK = 100;

export async function catchUpPartitions(env: Env): Promise<number> {
	const { results } = await env.DB.prepare("SELECT DISTINCT scope FROM search_changes LIMIT ?")
		.bind(NUDGED_PER_TICK)
		.all<{ scope: string }>();
	await Promise.all(results.map((row) => indexOf(env, row.scope).catchUp(row.scope)));
	return results.length;
}

/** A meeting's scope, as the triggers of migrations/0016_search_partitions.sql write it. */
export const scopeOfMeeting = (meeting: { userId: number; workspaceId: string | null }): string =>
	meeting.workspaceId ? `w:${meeting.workspaceId}` : `u:${meeting.userId}`;

/** Drops a meeting's rows from its partition now (it left D1, or its search rows expired); how many went. */
export function forgetInPartition(env: Env, meeting: { id: number; userId: number; workspaceId: string | null }): Promise<number> {
	const scope = scopeOfMeeting(meeting);
	return indexOf(env, scope).forgetMeeting(scope, meeting.id);
}

const indexOf = (env: Env, scope: string) => env.TRANSCRIPT_INDEX.get(env.TRANSCRIPT_INDEX.idFromName(scope));

function readyOrRetry(answer: PartitionAnswer): Extract<PartitionAnswer, { state: "ready" }> {
	if (answer.state === "ready") return answer;
	throw new ApiError(503, "The search index is still loading these transcripts; try again shortly", { "Retry-After": "5" });
}

/**
 * The partition keeps working on a search past its budget (only its own scope waits behind it);
 * the caller gets a clear answer instead of a stalled request.
 */
async function withinBudget<T>(deadline: number, work: Promise<T>): Promise<T> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const expired = new Promise<never>((_, reject) => {
		timer = setTimeout(
			() =>
				reject(
					new ApiError(503, "The search took longer than its time budget: narrow it (longer words, fewer terms, a filter) or try again", {
						"Retry-After": "2",
					}),
				),
			Math.max(0, deadline - Date.now()),
		);
	});
	try {
		return await Promise.race([work, expired]);
	} finally {
		clearTimeout(timer);
	}
}
