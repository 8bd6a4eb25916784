/**
 * Custom vocabulary (docs/api.md#vocabulary): the bot's list (POST /bots), the account's
 * (PUT /user/transcription) and a calendar plan's attendees and title, merged into the spawn
 * request a bot host claims; refusals name the field and the limit and create nothing.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { VOCABULARY_MAX } from "../../../src/bots/vocabulary";
import { meetCode } from "../../shared/meetings";
import { calendar, connect, newFeed, serveFeed, sync, utcIn, vevent } from "../calendars/feeds";
import { plans } from "../calendars/signed-in";
import { spawnRequestFor } from "../meetings/bot-sim";
import { sendBot } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";

type FieldErrors = { detail: { loc: (string | number)[]; msg: string }[] };

const meetingsOn = async (code: string) =>
	(await env.DB.prepare("SELECT count(*) AS n FROM meetings WHERE native_meeting_id = ?").bind(code).first<{ n: number }>())?.n;

describe("the account's vocabulary", () => {
	it("is stored by PUT /user/transcription, answered by GET, kept when left out and cleared by null or []", async () => {
		const { user, headers } = await userWithKey();
		expect(await json(await call("GET", "/user/transcription", { headers }))).toMatchObject({ vocabulary: [] });
		const put = await call("PUT", "/user/transcription", {
			headers,
			json: { vocabulary: ["  Siobhán O'Neill ", "Kubernetes operator", "kubernetes OPERATOR", "Datadog"] },
		});
		expect(put.status).toBe(200);
		// Trimmed, and a second spelling of an entry (whatever its case) dropped.
		expect(await json(put)).toMatchObject({ vocabulary: ["Siobhán O'Neill", "Kubernetes operator", "Datadog"] });
		await call("PUT", "/user/transcription", { headers, json: { url: "https://stt.example.com" } });
		expect(await json(await call("GET", "/user/transcription", { headers }))).toMatchObject({
			url: "https://stt.example.com",
			vocabulary: ["Siobhán O'Neill", "Kubernetes operator", "Datadog"],
		});
		expect(await json(await call("PUT", "/user/transcription", { headers, json: { vocabulary: [] } }))).toMatchObject({ vocabulary: [] });
		await call("PUT", "/user/transcription", { headers, json: { vocabulary: ["Datadog"] } });
		expect(await json(await call("PUT", "/user/transcription", { headers, json: { vocabulary: null } }))).toMatchObject({ vocabulary: [] });
		// Nothing else set: clearing the list leaves no settings row behind.
		await call("PUT", "/user/transcription", { headers, json: { url: null } });
		const rows = await env.DB.prepare("SELECT count(*) AS n FROM account_settings WHERE user_id = ?").bind(user.id).first<{ n: number }>();
		expect(rows?.n).toBe(0);
	});

	it("refuses a list past its limits with 422 naming the field and the limit, and keeps the stored one", async () => {
		const { headers } = await userWithKey();
		await call("PUT", "/user/transcription", { headers, json: { vocabulary: ["Datadog"] } });
		const cases: [unknown, (string | number)[], RegExp][] = [
			[Array.from({ length: VOCABULARY_MAX + 1 }, (_, i) => `term ${i}`), ["body", "vocabulary"], /at most 100 vocabulary entries/],
			[["ok", "x".repeat(65)], ["body", "vocabulary", 1], /at most 64 characters/],
			[["ok", "   "], ["body", "vocabulary", 1], /must not be empty/],
			["Datadog", ["body", "vocabulary"], /./],
		];
		for (const [vocabulary, loc, msg] of cases) {
			const res = await call("PUT", "/user/transcription", { headers, json: { vocabulary } });
			expect(res.status).toBe(422);
			const { detail } = await json<FieldErrors>(res);
			expect(detail[0]?.loc).toEqual(loc);
			expect(detail[0]?.msg).toMatch(msg);
		}
		expect(await json(await call("GET", "/user/transcription", { headers }))).toMatchObject({ vocabulary: ["Datadog"] });
	});
});

describe("the bot's vocabulary", () => {
	it("reaches the spawn request merged with the account's: the bot's first, deduplicated whatever the case", async () => {
		const { headers } = await userWithKey();
		await call("PUT", "/user/transcription", { headers, json: { vocabulary: ["Datadog", "Siobhán O'Neill", "PostgreSQL"] } });
		const m = await sendBot(headers, meetCode(), { vocabulary: ["Kubernetes operator", "datadog", " Anja   Novak "] });
		const spawn = await spawnRequestFor(m.id);
		expect(spawn.vocabulary).toEqual(["Kubernetes operator", "datadog", "Anja Novak", "Siobhán O'Neill", "PostgreSQL"]);
		// Without any list the bot gets none.
		const plain = await userWithKey();
		expect((await spawnRequestFor((await sendBot(plain.headers, meetCode())).id)).vocabulary).toEqual([]);
	});

	it("is capped at 100 merged entries, the bot's kept first", async () => {
		const { headers } = await userWithKey();
		const account = Array.from({ length: VOCABULARY_MAX }, (_, i) => `account term ${i}`);
		const own = Array.from({ length: 30 }, (_, i) => `bot term ${i}`);
		await call("PUT", "/user/transcription", { headers, json: { vocabulary: account } });
		const spawn = await spawnRequestFor((await sendBot(headers, meetCode(), { vocabulary: own })).id);
		expect(spawn.vocabulary).toEqual([...own, ...account.slice(0, VOCABULARY_MAX - own.length)]);
	});

	it("refuses a bad list with 422 naming the field and the limit, and creates no meeting", async () => {
		const { headers } = await userWithKey();
		const tooMany = Array.from({ length: VOCABULARY_MAX + 1 }, (_, i) => `t${i}`);
		for (const [vocabulary, loc, msg] of [
			[tooMany, ["body", "vocabulary"], /at most 100 vocabulary entries/],
			[["fine", "y".repeat(65)], ["body", "vocabulary", 1], /at most 64 characters/],
			[[""], ["body", "vocabulary", 0], /must not be empty/],
			[[42], ["body", "vocabulary", 0], /string/],
		] as [unknown, (string | number)[], RegExp][]) {
			const code = meetCode();
			const res = await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: code, vocabulary } });
			expect(res.status).toBe(422);
			const { detail } = await json<FieldErrors>(res);
			expect(detail[0]?.loc).toEqual(loc);
			expect(detail[0]?.msg).toMatch(msg);
			expect(await meetingsOn(code)).toBe(0);
		}
	});
});

describe("a calendar plan's vocabulary", () => {
	it("adds the attendees' names and the title's names and jargon when the plan's bot launches", async () => {
		const { headers } = await userWithKey("bot");
		const feed = newFeed();
		const code = meetCode();
		await serveFeed(
			feed,
			calendar(
				vevent({
					UID: "vocabulary-plan",
					DTSTART: utcIn(2),
					DTEND: utcIn(3),
					SUMMARY: "Weekly sync: Kubernetes operator rollout with Acme and the SLO review",
					LOCATION: `https://meet.google.com/${code}`,
					"ATTENDEE;CN=Siobhán O'Neill;ROLE=REQ-PARTICIPANT": "mailto:siobhan@example.com",
					"ATTENDEE;CN=Anja Novak;ROLE=REQ-PARTICIPANT": "mailto:anja@example.com",
					// An address as its own name (as Outlook writes) is no name to hint.
					"ATTENDEE;CN=bob@example.com;ROLE=REQ-PARTICIPANT": "mailto:bob@example.com",
				}),
			),
		);
		const connection = await connect(headers, feed);
		await sync(headers, connection.id);
		expect((await plans(headers)).map((p) => p.native_meeting_id)).toContain(code);
		await call("PUT", "/user/transcription", { headers, json: { vocabulary: ["anja novak", "Datadog"] } });
		const m = await sendBot(headers, code, { vocabulary: ["PostgreSQL"] });
		const spawn = await spawnRequestFor(m.id);
		expect(spawn.vocabulary).toEqual(["PostgreSQL", "anja novak", "Datadog", "Siobhán O'Neill", "Kubernetes", "Acme", "SLO"]);
	});
});
