import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TranscriptIndex } from "../../../durable-objects/transcript-index";
import { catchUpPartitions } from "../../../src/search/partitions";
import { SearchQuery, searchTranscripts } from "../../../src/search/transcript-search";
import { meetCode } from "../../shared/meetings";
import { createPlan, liveMeeting, meetUrl, segment, workspaceMeeting } from "../meetings/helpers";
import { ADMIN, call, json, sharedWorkspace, userWithKey } from "../support";
import { partitionOf, partitionRows, search, searchUntil, uniqueWord } from "./search-helpers";

/**
 * Security review findings 1 and 2: a search reads only the partitions of the scopes the
 * caller may search, so its cost and its ranking depend on the caller's readable words only.
 */
describe("search partitions: ranking reveals nothing of other accounts", () => {
	it("orders an account's hits the same whether or not another account says one of the words a lot", async () => {
		const x = uniqueWord("xoracle");
		const z = uniqueWord("zoracle");
		const a = await userWithKey();
		const mine = await liveMeeting(a.headers);
		// Same length, same words: only the words' statistics can tell the two segments apart.
		await mine.bot.send({ type: "segment", segment: segment({ segment_id: "xxz", text: `${x} ${x} ${z}`, start: 1, end: 2 }) });
		await mine.bot.send({ type: "segment", segment: segment({ segment_id: "xzz", text: `${x} ${z} ${z}`, start: 3, end: 4 }) });
		const order = async () => (await searchUntil(a.headers, { q: `${x} ${z}` }, 2)).hits.map((hit) => hit.segment_id);
		const alone = await order();

		const b = await userWithKey();
		const theirs = await liveMeeting(b.headers);
		for (let i = 0; i < 6; i++) {
			await theirs.bot.send({
				type: "segment",
				segment: segment({ segment_id: `b${i}`, text: `${x} said again ${i}`, start: i, end: i + 1 }),
			});
		}
		await searchUntil(b.headers, { q: x }, 6);
		expect(await order()).toEqual(alone);
		// B's words never reach A's hits or total.
		expect((await search(a.headers, { q: x })).total).toBe(2);
	});
});

describe("search partitions: each search reads only the caller's scopes", () => {
	it("keeps each account's segments in its own partition, and a workspace's in the workspace's", async () => {
		const word = uniqueWord("isolated");
		const a = await userWithKey();
		const b = await userWithKey();
		const mine = await liveMeeting(a.headers);
		const theirs = await liveMeeting(b.headers);
		await mine.bot.send({ type: "segment", segment: segment({ text: `${word} in a's meeting` }) });
		for (let i = 0; i < 3; i++) await theirs.bot.send({ type: "segment", segment: segment({ segment_id: `b${i}`, text: `${word} ${i}` }) });
		expect((await searchUntil(a.headers, { q: word }, 1)).hits.map((hit) => hit.meeting_id)).toEqual([mine.meeting.id]);
		await searchUntil(b.headers, { q: word }, 3);
		expect(await partitionRows(`u:${a.user.id}`)).toEqual({ words: 1, segments: 1, meetings: 1 });
		expect(await partitionRows(`u:${b.user.id}`)).toEqual({ words: 3, segments: 3, meetings: 1 });

		const shared = await workspaceMeeting();
		await shared.bot.send({ type: "segment", segment: segment({ text: `${word} for the team` }) });
		await searchUntil(shared.member.headers, { q: word }, 1);
		expect(await partitionRows(`w:${shared.workspace}`)).toEqual({ words: 1, segments: 1, meetings: 1 });
		expect((await partitionRows(`u:${shared.owner.user.id}`)).segments).toBe(0);
	});

	it("moves a meeting's segments when it is bound to a workspace, and back when it is unbound", async () => {
		const word = uniqueWord("rebound");
		const owner = await userWithKey();
		const member = await userWithKey();
		const outsider = await userWithKey();
		const workspace = await sharedWorkspace(owner.user.id, member.user.id);
		const { bot, meeting } = await liveMeeting(owner.headers);
		await bot.send({ type: "segment", segment: segment({ text: `${word} before binding` }) });
		await searchUntil(owner.headers, { q: word }, 1);
		expect((await search(member.headers, { q: word })).total).toBe(0);

		// Only a plan is rebound through the API (PATCH /meetings/{id}); the log is the database's own, so
		// a meeting with a transcript moved by any path moves in the index too.
		const bind = async (workspaceId: string | null) => {
			await env.DB.prepare("UPDATE meetings SET workspace_id = ? WHERE id = ?").bind(workspaceId, meeting.id).run();
		};
		await bind(workspace);
		expect((await search(member.headers, { q: word })).total).toBe(1);
		expect((await search(owner.headers, { q: word })).total).toBe(1);
		expect((await search(outsider.headers, { q: word })).total).toBe(0);
		expect((await partitionRows(`u:${owner.user.id}`)).segments).toBe(0);
		expect((await partitionRows(`w:${workspace}`)).segments).toBe(1);

		await bind(null);
		expect((await search(member.headers, { q: word })).total).toBe(0);
		expect((await search(owner.headers, { q: word })).total).toBe(1);
		expect((await partitionRows(`w:${workspace}`)).segments).toBe(0);
	});

	it("lets an owner who left the workspace still find their own meeting there, and only theirs", async () => {
		const word = uniqueWord("leaver");
		const { owner, member, workspace, bot } = await workspaceMeeting();
		await bot.send({ type: "segment", segment: segment({ text: `${word} from the owner's meeting` }) });
		const code = meetCode();
		await createPlan(member.headers, { meeting_url: meetUrl(code), workspace_id: workspace });
		const other = await liveMeeting(member.headers, code);
		await other.bot.send({ type: "segment", segment: segment({ text: `${word} from the member's meeting` }) });
		await searchUntil(member.headers, { q: word }, 2);
		const left = await call("DELETE", `/admin/workspaces/${encodeURIComponent(workspace)}/members/${owner.user.id}`, { headers: ADMIN });
		expect(left.status).toBe(204);
		const found = await search(owner.headers, { q: word });
		expect(found.hits.map((hit) => hit.snippet)).toEqual([`${word} from the owner's meeting`]);
	});

	it("empties a removed user's partition at the next cron tick, without a search", async () => {
		const word = uniqueWord("removed");
		const { headers, user } = await userWithKey();
		const { bot } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ text: `${word} said once` }) });
		await searchUntil(headers, { q: word }, 1);
		expect((await partitionRows(`u:${user.id}`)).segments).toBe(1);
		await env.DB.prepare("DELETE FROM users WHERE id = ?").bind(user.id).run();
		await catchUpPartitions(env);
		expect(await partitionRows(`u:${user.id}`)).toEqual({ words: 0, segments: 0, meetings: 0 });
	});
});

describe("search partitions: bounded work per query", () => {
	it("refuses more than 8 terms and prefixes shorter than 3 letters, judged on the token FTS5 uses", async () => {
		const { headers } = await userWithKey();
		const { bot } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ text: "the k-means budget review" }) });
		await searchUntil(headers, { q: "budget" }, 1);
		const refused = async (q: string, msg: RegExp) => {
			const res = await call("GET", `/transcripts/search?q=${encodeURIComponent(q)}`, { headers });
			expect(res.status, q).toBe(422);
			const body = await json<{ detail: { loc: string[]; msg: string }[] }>(res);
			expect(body.detail[0]?.loc, q).toEqual(["query", "q"]);
			expect(body.detail[0]?.msg, q).toMatch(msg);
		};
		for (const q of ["k-*", "k*", "bu*", "x.bu*", "means k-* budget", "abc-k*", "é*"]) await refused(q, /prefix .* too short/);
		await refused(Array.from({ length: 9 }, (_, i) => `w${i}`).join(" "), /more than 8 terms/);
		await refused(Array.from({ length: 32 }, (_, i) => `${String.fromCharCode(98 + (i % 24))}-*`).join(" "), /too short/);
		expect((await search(headers, { q: "bud*" })).total).toBe(1);
		expect((await search(headers, { q: "k-mea*" })).total).toBe(1);
		expect((await search(headers, { q: "the k means budget review the k means" })).total).toBe(1);
	});

	it("answers 503 with Retry-After when a search passes its time budget", async () => {
		const reader = await userWithKey();
		const { bot } = await liveMeeting(reader.headers);
		await bot.send({ type: "segment", segment: segment({ text: "budgeted words" }) });
		await searchUntil(reader.headers, { q: "budgeted" }, 1);
		const query = SearchQuery.parse({ q: "budgeted" });
		// The partition busy for 3 s (as with a long search of its own scope), the budget 50 ms. The block is
		// asked for first and answers only once it ends, so it is awaited after the search.
		const busy = runInDurableObject(partitionOf(`u:${reader.user.id}`), (_index: TranscriptIndex, state) => {
			void state.blockConcurrencyWhile(() => new Promise((resolve) => setTimeout(resolve, 3_000)));
		});
		const late = searchTranscripts({ ...env, SEARCH_TIME_BUDGET_MS: "50" }, { userId: reader.user.id }, query);
		await expect(late).rejects.toMatchObject({
			status: 503,
			headers: { "Retry-After": "2" },
			detail: expect.stringMatching(/time budget/),
		});
		await busy;
		expect((await searchTranscripts(env, { userId: reader.user.id }, query)).total).toBe(1);
	});

	it("answers 503 with Retry-After while a partition is still loading, and finds everything once it has", async () => {
		const { headers, user } = await userWithKey();
		const { bot, meeting } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ text: "loaded at last" }) });
		await searchUntil(headers, { q: "loaded" }, 1);
		// More entries waiting than one search pulls: rewritten segments this scope no longer has.
		await env.DB.prepare(
			`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2500)
			INSERT INTO search_changes (scope, meeting_id, segment_id) SELECT ?, ?, 1000000000 + i FROM n`,
		)
			.bind(`u:${user.id}`, meeting.id)
			.run();
		const res = await call("GET", "/transcripts/search?q=loaded", { headers });
		expect(res.status).toBe(503);
		expect(res.headers.get("Retry-After")).toBe("5");
		expect((await json<{ detail: string }>(res)).detail).toMatch(/still loading/);
		// The rest is pulled by the partition's alarm.
		await searchUntil(headers, { q: "loaded" }, 1);
	});
});

describe("search partitions: one answer across several", () => {
	it("pages through the hits of the caller's own partition and a workspace's as one ranked list", async () => {
		const word = uniqueWord("merged");
		const { owner, bot: shared } = await workspaceMeeting();
		const own = await liveMeeting(owner.headers);
		// Each partition scores with its own statistics (its segments' average length among them), so only
		// the order within a partition is fixed here: shorter first.
		await own.bot.send({ type: "segment", segment: segment({ segment_id: "o1", text: `${word}` }) });
		await shared.send({ type: "segment", segment: segment({ segment_id: "w2", text: `${word} two` }) });
		await own.bot.send({ type: "segment", segment: segment({ segment_id: "o3", text: `${word} three more` }) });
		await shared.send({ type: "segment", segment: segment({ segment_id: "w4", text: `${word} four more words` }) });
		const all = await searchUntil(owner.headers, { q: word }, 4);
		const ids = all.hits.map((hit) => hit.segment_id);
		expect(ids.filter((id) => id.startsWith("o"))).toEqual(["o1", "o3"]);
		expect(ids.filter((id) => id.startsWith("w"))).toEqual(["w2", "w4"]);
		const paged = [];
		for (const offset of [0, 1, 2, 3]) {
			const page = await search(owner.headers, { q: word, limit: 1, offset });
			expect(page.total).toBe(4);
			paged.push(...page.hits);
		}
		expect(paged).toEqual(all.hits);
		expect(paged.every((hit) => hit.highlights.length === 1 && hit.snippet.startsWith(word))).toBe(true);
	});
});

describe("search partitions: the change log", () => {
	it("stores a segment rewritten many times before any search, and finds it by its last words", async () => {
		const { headers, meeting } = await (async () => {
			const reader = await userWithKey();
			return { headers: reader.headers, meeting: await liveMeeting(reader.headers) };
		})();
		const words = ["first", "second", "third", "fourth"].map((w) => uniqueWord(w));
		for (const [i, word] of words.entries())
			await meeting.bot.send({ type: "segment", segment: segment({ segment_id: "again", text: `${word} draft`, completed: i === 3 }) });
		const found = await searchUntil(headers, { q: words[3] ?? "" }, 1);
		expect(found.hits[0]?.segment_id).toBe("again");
		for (const word of words.slice(0, 3)) expect((await search(headers, { q: word })).total).toBe(0);
		const stored = await env.DB.prepare("SELECT text FROM transcript_segments WHERE meeting_id = ?").bind(meeting.meeting.id).all();
		expect(stored.results).toEqual([{ text: `${words[3]} draft` }]);
	});
});
