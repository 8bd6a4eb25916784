import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SimulatedBot, spawnRequestFor } from "../meetings/bot-sim";
import { liveMeeting, segment, workspaceMeeting } from "../meetings/helpers";
import { ADMIN, call, json, userWithKey } from "../support";
import { emptyPartition, highlighted, search, searchUntil } from "./search-helpers";

describe("GET /transcripts/search", () => {
	it("ranks hits best first and marks the matched words in a plain-text snippet", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		await bot.send({
			type: "segment",
			segment: segment({
				segment_id: "long",
				speaker: "Bob",
				text: "The budget came up once while we talked about many other things today",
				start: 10,
				end: 14,
			}),
		});
		await bot.send({ type: "segment", segment: segment({ segment_id: "dense", text: "Budget, budget review.", start: 3, end: 5 }) });
		await bot.send({ type: "segment", segment: segment({ segment_id: "none", text: "Nothing to see here.", start: 1, end: 2 }) });

		const found = await searchUntil(headers, { q: "budget" }, 2);
		expect(found).toMatchObject({ q: "budget", total: 2, limit: 20, offset: 0 });
		expect(found.hits.map((hit) => hit.segment_id)).toEqual(["dense", "long"]);
		const [best, second] = found.hits;
		expect(best).toMatchObject({
			meeting_id: meeting.id,
			platform: "google_meet",
			native_meeting_id: code,
			title: null,
			segment_id: "dense",
			speaker: "Alice",
			start: 3,
			end: 5,
			absolute_start_time: null,
			source: null,
			snippet: "Budget, budget review.",
		});
		expect(best?.meeting_start_time).toBe(
			(await json<{ start_time: string }>(await call("GET", `/meetings/${meeting.id}`, { headers }))).start_time,
		);
		expect(best?.highlights).toEqual([
			[0, 6],
			[8, 14],
		]);
		expect(second && highlighted(second)).toEqual(["budget"]);
	});

	it("says where each hit's text came from: the engine's name or captions", async () => {
		const { headers } = await userWithKey();
		const { bot } = await liveMeeting(headers);
		const word = "quokkasource";
		await bot.send({ type: "segment", segment: { ...segment({ segment_id: "heard", text: `the ${word} heard` }), source: "deepgram" } });
		await bot.send({ type: "segment", segment: { ...segment({ segment_id: "read", text: `the ${word} read` }), source: "captions" } });
		const found = await searchUntil(headers, { q: word }, 2);
		expect(Object.fromEntries(found.hits.map((hit) => [hit.segment_id, hit.source]))).toEqual({ heard: "deepgram", read: "captions" });
	});

	it("finds words regardless of case and accents, with offsets in code points (an emoji is one)", async () => {
		const { headers } = await userWithKey();
		const { bot } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ text: "🎉 Café crème for everyone" }) });
		const found = await searchUntil(headers, { q: "CAFE" }, 1);
		expect(found.hits[0]?.highlights).toEqual([[2, 6]]);
		expect(found.hits[0] && highlighted(found.hits[0])).toEqual(["Café"]);
		expect((await search(headers, { q: "creme everyone" })).total).toBe(1);
	});

	it("searches the speaker's name as well as what was said", async () => {
		const { headers } = await userWithKey();
		const { bot } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ speaker: "Zebulon Quartermaine", text: "I agree." }) });
		const found = await searchUntil(headers, { q: "quartermaine" }, 1);
		expect(found.hits[0]).toMatchObject({ speaker: "Zebulon Quartermaine", snippet: "I agree.", highlights: [] });
	});

	it("finds a draft replaced by its confirmation by its new words, not its old", async () => {
		const { headers } = await userWithKey();
		const { bot } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ segment_id: "s-9", text: "we launch the rocket", completed: false }) });
		await searchUntil(headers, { q: "rocket" }, 1);
		await bot.send({ type: "segment", segment: segment({ segment_id: "s-9", text: "we launch the satellite", completed: true }) });
		const found = await searchUntil(headers, { q: "satellite" }, 1);
		expect(found.hits[0]).toMatchObject({ segment_id: "s-9", snippet: "we launch the satellite" });
		expect((await search(headers, { q: "rocket" })).total).toBe(0);
		// A draft arriving after the confirmation changes nothing, in the transcript or the index.
		await bot.send({ type: "segment", segment: segment({ segment_id: "s-9", text: "we launch the balloon", completed: false }) });
		await bot.send({ type: "segment", segment: segment({ segment_id: "s-10", text: "later words", completed: true }) });
		await searchUntil(headers, { q: "later" }, 1);
		expect((await search(headers, { q: "balloon" })).total).toBe(0);
		expect((await search(headers, { q: "satellite" })).total).toBe(1);
	});

	it("forgets a meeting's segments when the meeting is deleted", async () => {
		const { headers } = await userWithKey();
		const kept = await liveMeeting(headers);
		const gone = await liveMeeting(headers);
		await kept.bot.send({ type: "segment", segment: segment({ text: "the kept harbour plan" }) });
		await gone.bot.send({ type: "segment", segment: segment({ text: "the deleted harbour plan" }) });
		await searchUntil(headers, { q: "harbour" }, 2);
		// No route deletes a meeting that has a transcript; the record goes (and its segments by cascade) when a user is removed or by an operator.
		await env.DB.prepare("DELETE FROM meetings WHERE id = ?").bind(gone.meeting.id).run();
		const found = await search(headers, { q: "harbour" });
		expect(found.hits.map((hit) => hit.meeting_id)).toEqual([kept.meeting.id]);
		expect((await search(headers, { q: "deleted" })).total).toBe(0);
	});

	it("indexes segments stored before the partitions existed on their first search (migration 0016's backfill)", async () => {
		const { headers, user } = await userWithKey();
		const { bot } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ text: "an older gazebo" }) });
		await searchUntil(headers, { q: "gazebo" }, 1);
		// As before the migration: the partition empty and nothing logged for it.
		await emptyPartition(`u:${user.id}`);
		expect((await search(headers, { q: "gazebo" })).total).toBe(0);
		const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0016_"));
		const backfill = migration?.queries.at(-1);
		expect(backfill).toMatch(/INSERT INTO search_changes/);
		await env.DB.prepare(backfill ?? "").run();
		const found = await search(headers, { q: "gazebo" });
		expect(found.hits[0]).toMatchObject({ snippet: "an older gazebo", highlights: [[9, 15]] });
	});

	it("never shows another user's meetings, even for the same words", async () => {
		const mine = await userWithKey();
		const theirs = await userWithKey();
		const a = await liveMeeting(mine.headers);
		const b = await liveMeeting(theirs.headers);
		await a.bot.send({ type: "segment", segment: segment({ text: "shared secret lighthouse" }) });
		await b.bot.send({ type: "segment", segment: segment({ text: "their secret lighthouse" }) });
		await b.bot.send({ type: "segment", segment: segment({ segment_id: "s-2", text: "only their lighthouse" }) });
		const found = await searchUntil(mine.headers, { q: "lighthouse" }, 1);
		expect(found.hits.map((hit) => hit.meeting_id)).toEqual([a.meeting.id]);
		expect((await searchUntil(theirs.headers, { q: "lighthouse" }, 2)).hits.every((hit) => hit.meeting_id === b.meeting.id)).toBe(true);
	});

	it("lets a workspace member search a meeting bound to the workspace, until they leave it", async () => {
		const { owner, member, meeting, bot, workspace } = await workspaceMeeting();
		const outsider = await userWithKey();
		await bot.send({ type: "segment", segment: segment({ text: "the workspace roadmap" }) });
		await searchUntil(owner.headers, { q: "roadmap" }, 1);
		const seen = await search(member.headers, { q: "roadmap" });
		expect(seen.hits.map((hit) => hit.meeting_id)).toEqual([meeting.id]);
		expect((await search(outsider.headers, { q: "roadmap" })).total).toBe(0);

		const left = await call("DELETE", `/admin/workspaces/${encodeURIComponent(workspace)}/members/${member.user.id}`, { headers: ADMIN });
		expect(left.status, await left.clone().text()).toBe(204);
		expect((await search(member.headers, { q: "roadmap" })).total).toBe(0);
		expect((await search(owner.headers, { q: "roadmap" })).total).toBe(1);
	});

	it("answers the meeting's title once it has one", async () => {
		const { headers } = await userWithKey();
		const { bot, code } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ text: "titled words" }) });
		expect((await searchUntil(headers, { q: "titled" }, 1)).hits[0]?.title).toBeNull();
		const titled = await call("PATCH", `/meetings/google_meet/${code}`, { headers, json: { title: "<b>Weekly</b> sync" } });
		expect(titled.status, await titled.clone().text()).toBe(200);
		expect((await search(headers, { q: "titled" })).hits[0]?.title).toBe("<b>Weekly</b> sync");
	});
});

describe("GET /transcripts/search filters and pages", () => {
	/** One Google Meet and one Zoom meeting of one user, with segments at known times. */
	async function twoMeetings() {
		const { headers } = await userWithKey();
		const meet = await liveMeeting(headers);
		const zoomId = String(Math.floor(10_000_000_000 + Math.random() * 89_999_999_999));
		const res = await call("POST", "/bots", { headers, json: { platform: "zoom", native_meeting_id: zoomId } });
		expect(res.status, await res.clone().text()).toBe(201);
		const zoom = await json<{ id: number }>(res);
		const zoomBot = await SimulatedBot.connect(await spawnRequestFor(zoom.id));
		await zoomBot.status("active");
		const at = (iso: string) => ({ absolute_start_time: iso });
		await meet.bot.send({
			type: "segment",
			segment: { ...segment({ segment_id: "m1", speaker: "Alice", text: "ferry schedule one" }), ...at("2026-01-10T10:00:00Z") },
		});
		await meet.bot.send({
			type: "segment",
			segment: { ...segment({ segment_id: "m2", speaker: "Bob", text: "ferry schedule two" }), ...at("2026-03-10T10:00:00.000Z") },
		});
		await zoomBot.send({
			type: "segment",
			segment: { ...segment({ segment_id: "z1", speaker: "alice", text: "ferry schedule three" }), ...at("2026-05-10T10:00:00Z") },
		});
		await searchUntil(headers, { q: "ferry" }, 3);
		return { headers, meet: meet.meeting, zoom };
	}

	it("filters by platform, speaker (any case) and time, alone and together", async () => {
		const { headers, meet, zoom } = await twoMeetings();
		const ids = async (params: Record<string, string>) =>
			(await search(headers, { q: "ferry", ...params })).hits.map((hit) => hit.segment_id).sort();
		expect(await ids({ platform: "zoom" })).toEqual(["z1"]);
		expect(await ids({ platform: "google_meet" })).toEqual(["m1", "m2"]);
		expect(await ids({ platform: "teams" })).toEqual([]);
		expect(await ids({ speaker: "ALICE" })).toEqual(["m1", "z1"]);
		expect(await ids({ speaker: "Ali" })).toEqual([]);
		expect(await ids({ from: "2026-02-01T00:00:00Z" })).toEqual(["m2", "z1"]);
		expect(await ids({ to: "2026-03-10T10:00:00Z" })).toEqual(["m1", "m2"]);
		// An offset is an instant: 11:00+01:00 is 10:00Z.
		expect(await ids({ from: "2026-03-10T11:00:00+01:00", to: "2026-04-01T00:00:00" })).toEqual(["m2"]);
		expect(await ids({ speaker: "alice", platform: "google_meet", to: "2026-02-01T00:00:00Z" })).toEqual(["m1"]);
		const zoomHit = (await search(headers, { q: "three" })).hits[0];
		expect(zoomHit).toMatchObject({ meeting_id: zoom.id, platform: "zoom", absolute_start_time: "2026-05-10T10:00:00Z" });
		expect((await search(headers, { q: "one" })).hits[0]?.meeting_id).toBe(meet.id);
	});

	it("pages through every hit once, in rank order, with the total on every page", async () => {
		const { headers } = await userWithKey();
		const { bot } = await liveMeeting(headers);
		for (let i = 1; i <= 5; i++) {
			const filler = Array.from({ length: i }, () => "other").join(" ");
			await bot.send({ type: "segment", segment: segment({ segment_id: `p${i}`, text: `pelican ${filler}`, start: i, end: i + 1 }) });
		}
		const all = await searchUntil(headers, { q: "pelican" }, 5);
		// The shortest segment ranks first (bm25 weighs the match against the segment's length).
		expect(all.hits.map((hit) => hit.segment_id)).toEqual(["p1", "p2", "p3", "p4", "p5"]);
		const pages = [];
		for (const offset of [0, 2, 4]) {
			const page = await search(headers, { q: "pelican", limit: 2, offset });
			expect(page).toMatchObject({ total: 5, limit: 2, offset });
			pages.push(...page.hits.map((hit) => hit.segment_id));
		}
		expect(pages).toEqual(["p1", "p2", "p3", "p4", "p5"]);
		expect(await search(headers, { q: "pelican", limit: 2, offset: 10 })).toEqual({
			q: "pelican",
			total: 5,
			limit: 2,
			offset: 10,
			hits: [],
		});
	});
});

describe("GET /transcripts/search with hostile input", () => {
	it("answers 422 with a clear detail for a query with nothing to search, and for bad parameters", async () => {
		const { headers } = await userWithKey();
		const nothing = ['"', "*", "-", "()", ":", '""', "* - ^ :", "🎉"];
		for (const q of nothing) {
			const res = await call("GET", `/transcripts/search?q=${encodeURIComponent(q)}`, { headers });
			expect(res.status, q).toBe(422);
			const body = await json<{ detail: { loc: string[]; msg: string }[] }>(res);
			expect(body.detail[0]?.loc, q).toEqual(["query", "q"]);
			expect(body.detail[0]?.msg, q).toMatch(/nothing to search for/);
		}
		const bad = [
			"",
			"q=",
			`q=${"a".repeat(201)}`,
			"q=x&limit=0",
			"q=x&limit=101",
			"q=x&offset=-1",
			"q=x&platform=skype",
			"q=x&from=yesterday",
			"q=x&from=2026-05-01T00:00:00Z&to=2026-04-01T00:00:00Z",
			`q=${"a ".repeat(40)}`,
			"q=a*b*c*",
		];
		for (const query of bad) {
			const res = await call("GET", `/transcripts/search?${query}`, { headers });
			expect(res.status, query).toBe(422);
			expect((await json<{ detail: unknown }>(res)).detail, query).toBeTruthy();
		}
	});

	it("treats FTS5 syntax as plain words and never fails on odd input", async () => {
		const { headers } = await userWithKey();
		const { bot } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ speaker: "Alice", text: "the otter budget" }) });
		await searchUntil(headers, { q: "otter" }, 1);
		const finds = async (q: string) => (await search(headers, { q })).total;
		// Operators and column filters would widen or change the match; as words they must all be present.
		expect(await finds("otter OR nowhere")).toBe(0);
		expect(await finds("speaker:alice")).toBe(0);
		expect(await finds("text:otter")).toBe(0);
		expect(await finds("NOT otter")).toBe(0);
		expect(await finds("otter NEAR(budget")).toBe(0);
		expect(await finds("otter (budget)")).toBe(1);
		expect(await finds('"otter budget"')).toBe(1);
		expect(await finds('"budget otter"')).toBe(0);
		expect(await finds('otter "budg')).toBe(0);
		expect(await finds("-otter ^budget")).toBe(1);
		expect(await finds("budg*")).toBe(1);
		expect(await finds("budg")).toBe(0);
		for (const q of [
			'otter"',
			'"otter',
			"ott\u0000er",
			"日本語",
			"otter\u0001budget",
			"o'tter",
			"NEAR(",
			"50%",
			"otter)",
			`${'"'.repeat(99)}x`,
		]) {
			const res = await call("GET", `/transcripts/search?q=${encodeURIComponent(q)}`, { headers });
			expect(res.status, JSON.stringify(q)).toBe(200);
		}
	});

	it("answers a meeting's markup and control characters as text, with only real matches marked", async () => {
		const { headers } = await userWithKey();
		const { bot } = await liveMeeting(headers);
		const forged = "<img src=x onerror=alert(1)> \u0001fake\u0002 walrus & <script>alert(2)</script>";
		await bot.send({ type: "segment", segment: segment({ speaker: "<b>Mallory</b>", text: forged }) });
		const found = await searchUntil(headers, { q: "walrus" }, 1);
		const hit = found.hits[0];
		expect(hit?.speaker).toBe("<b>Mallory</b>");
		expect(hit?.snippet).toContain("<img src=x onerror=alert(1)>");
		expect(hit?.snippet).not.toContain("\u0001");
		expect(hit?.snippet).not.toContain("\u0002");
		expect(hit && highlighted(hit)).toEqual(["walrus"]);
		// The forged marks are gone, and the word they wrapped is found (and marked) like any other.
		const fake = (await search(headers, { q: "fake" })).hits[0];
		expect(fake && highlighted(fake)).toEqual(["fake"]);
	});
});
