import { applyD1Migrations, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type Meeting, meetCode } from "../../shared/meetings";
import { call, joinWorkspace, json, userWithKey } from "../support";
import { createPlan, getMeeting, meetUrl, sendBot } from "./helpers";

const FUTURE = "2031-05-04T09:30:00.000Z";
const list = async (headers: Record<string, string>, query = "") => {
	const res = await call("GET", `/meetings${query}`, { headers });
	expect(res.status, `GET /meetings${query}`).toBe(200);
	return (await json<{ meetings: Meeting[] }>(res)).meetings;
};
const ids = (meetings: Meeting[]) => meetings.map((m) => m.id);

describe("POST /meetings", () => {
	it("creates an idle plan without a time and a scheduled one with a time, 201 with the full record", async () => {
		const { headers, user } = await userWithKey();
		const code = meetCode();
		await joinWorkspace("ws-a", user.id);
		const idleRes = await call("POST", "/meetings", { headers, json: { title: "Retro" } });
		expect(idleRes.status).toBe(201);
		const idle = await json<Meeting>(idleRes);
		expect(idle).toMatchObject({
			user_id: user.id,
			platform: "unknown",
			native_meeting_id: null,
			constructed_meeting_url: null,
			status: "idle",
			start_time: null,
			end_time: null,
			notes: null,
			recordings: [],
			auto_join: true,
			workspace_id: null,
			data: { title: "Retro" },
		});
		expect(Number.isInteger(idle.id)).toBe(true);
		expect(Date.parse(idle.created_at)).not.toBeNaN();

		const res = await call("POST", "/meetings", {
			headers,
			json: {
				title: "Planning",
				scheduled_at: "2031-05-04T11:30:00+02:00",
				meeting_url: `${meetUrl(code)}?authuser=1`,
				notes: "bring numbers",
				workspace_id: "ws-a",
				auto_join: false,
			},
		});
		expect(res.status).toBe(201);
		const scheduled = await json<Meeting>(res);
		expect(scheduled).toMatchObject({
			status: "scheduled",
			platform: "google_meet",
			native_meeting_id: code,
			constructed_meeting_url: meetUrl(code),
			notes: "bring numbers",
			workspace_id: "ws-a",
			auto_join: false,
			data: { title: "Planning", scheduled_at: FUTURE, notes: "bring numbers" },
		});
		expect(await getMeeting(headers, scheduled.id)).toEqual(scheduled);
	});

	it("answers 422 for an unrecognized meeting_url and stores nothing", async () => {
		const { headers } = await userWithKey();
		for (const meeting_url of ["https://example.com/meeting/123", "https://meet.google.com/not-a-code", "discord://x"]) {
			const res = await call("POST", "/meetings", { headers, json: { title: "x", meeting_url } });
			expect(res.status, meeting_url).toBe(422);
			const body = await json<{ detail: { loc: string[] }[] }>(res);
			expect(body.detail[0]?.loc).toEqual(["body", "meeting_url"]);
		}
		expect(await list(headers)).toEqual([]);
	});

	it("ignores unknown fields, as the reference does, and answers 422 for a bad scheduled_at", async () => {
		const { headers } = await userWithKey();
		const res = await call("POST", "/meetings", { headers, json: { title: "x", status: "active" } });
		expect(res.status).toBe(201);
		expect(await json<Meeting>(res)).toMatchObject({ status: "idle", data: { title: "x" } });
		expect((await call("POST", "/meetings", { headers, json: { scheduled_at: "tomorrow" } })).status).toBe(422);
		expect((await list(headers)).map((m) => m.status)).toEqual(["idle"]);
	});

	it("answers 409 for a second non-terminal meeting on the same link, planned or live, and allows one after the end", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const first = await createPlan(headers, { meeting_url: meetUrl(code) });
		const dup = await call("POST", "/meetings", { headers, json: { title: "again", meeting_url: meetUrl(code), scheduled_at: FUTURE } });
		expect(dup.status).toBe(409);
		expect(await dup.json()).toEqual({ detail: "A non-terminal meeting already exists for this meeting link" });

		// The plan becomes live: still the one open meeting on the link.
		expect((await sendBot(headers, code)).id).toBe(first.id);
		expect((await call("POST", "/meetings", { headers, json: { meeting_url: meetUrl(code) } })).status).toBe(409);

		// Once it has ended, the link is free for a new plan.
		expect((await call("DELETE", `/bots/google_meet/${code}`, { headers })).status).toBe(204);
		expect((await getMeeting(headers, first.id)).status).toBe("completed");
		const next = await call("POST", "/meetings", { headers, json: { meeting_url: meetUrl(code) } });
		expect(next.status).toBe(201);
		expect((await json<Meeting>(next)).id).not.toBe(first.id);

		// Another user's plan on the same link is their own business.
		const other = await userWithKey();
		expect((await call("POST", "/meetings", { headers: other.headers, json: { meeting_url: meetUrl(code) } })).status).toBe(201);
	});
});

describe("GET /meetings", () => {
	it("lists only the caller's meetings as {meetings:[...]}, newest first", async () => {
		const { headers } = await userWithKey();
		const other = await userWithKey();
		const theirs = await createPlan(other.headers, { title: "not yours" });
		const a = await createPlan(headers, { title: "a" });
		const b = await createPlan(headers, { title: "b", meeting_url: meetUrl(meetCode()) });
		const c = await createPlan(headers, { title: "c", scheduled_at: FUTURE });

		const res = await call("GET", "/meetings", { headers });
		const body = await json<{ meetings: Meeting[] }>(res);
		expect(Object.keys(body)).toEqual(["meetings"]);
		expect(ids(body.meetings)).toEqual([c.id, b.id, a.id]);
		expect(body.meetings[0]).toEqual(c);
		// Keys of the meeting record (docs/api.md#the-meeting-record) are all present.
		for (const key of [
			"id",
			"user_id",
			"platform",
			"native_meeting_id",
			"constructed_meeting_url",
			"status",
			"bot_container_id",
			"start_time",
			"end_time",
			"created_at",
			"updated_at",
		]) {
			expect(body.meetings[0]).toHaveProperty(key);
		}

		const res404 = await call("GET", `/meetings/${theirs.id}`, { headers });
		expect(res404.status).toBe(404);
		expect(await res404.json()).toEqual({ detail: "Meeting not found" });
		expect((await call("GET", "/meetings/99999999", { headers })).status).toBe(404);
		expect(ids(await list(other.headers))).toEqual([theirs.id]);
	});

	it("includes meetings bound to a workspace the caller is a member of, read-only", async () => {
		const owner = await userWithKey();
		const member = await userWithKey();
		const workspace = `ws-${crypto.randomUUID()}`;
		await joinWorkspace(workspace, owner.user.id);
		const shared = await createPlan(owner.headers, { title: "shared", workspace_id: workspace });
		await createPlan(owner.headers, { title: "private" });
		const own = await createPlan(member.headers, { title: "member's own" });
		expect(ids(await list(member.headers))).toEqual([own.id]);
		await env.DB.prepare("INSERT INTO workspace_members (workspace_id, user_id) VALUES (?, ?)").bind(workspace, member.user.id).run();
		expect(ids(await list(member.headers))).toEqual([own.id, shared.id]);
		expect((await call("DELETE", `/meetings/${shared.id}`, { headers: member.headers })).status).toBe(404);
	});

	it("filters by status (a comma list), refusing an unknown status with 422", async () => {
		const { headers } = await userWithKey();
		const idle = await createPlan(headers, { title: "idle" });
		const scheduled = await createPlan(headers, { scheduled_at: FUTURE });
		const live = await sendBot(headers, meetCode());

		expect(ids(await list(headers, "?status=idle"))).toEqual([idle.id]);
		expect(ids(await list(headers, "?status=scheduled,requested"))).toEqual([live.id, scheduled.id]);
		expect(ids(await list(headers, "?status=idle, scheduled"))).toEqual([scheduled.id, idle.id]);
		expect(await list(headers, "?status=completed")).toEqual([]);

		const bad = await call("GET", "/meetings?status=idle,bogus", { headers });
		expect(bad.status).toBe(422);
		const detail = (await json<{ detail: { loc: string[]; msg: string }[] }>(bad)).detail;
		expect(detail[0]?.loc).toEqual(["query", "status"]);
		expect(detail[0]?.msg).toContain("bogus");
	});

	it("filters by platform, and refuses an unknown platform with 422", async () => {
		const { headers } = await userWithKey();
		const meet = await createPlan(headers, { meeting_url: meetUrl(meetCode()) });
		const zoom = await createPlan(headers, { meeting_url: "https://us05web.zoom.us/j/85512345678?pwd=abc" });
		const none = await createPlan(headers, { title: "no link" });
		expect(ids(await list(headers, "?platform=google_meet"))).toEqual([meet.id]);
		expect(ids(await list(headers, "?platform=zoom"))).toEqual([zoom.id]);
		expect(ids(await list(headers, "?platform=unknown"))).toEqual([none.id]);
		expect(await list(headers, "?platform=teams")).toEqual([]);
		expect((await call("GET", "/meetings?platform=discord", { headers })).status).toBe(422);
	});

	it("filters by created and scheduled time ranges (bounds inclusive)", async () => {
		const { headers } = await userWithKey();
		const made: Meeting[] = [];
		for (const [i, month] of ["01", "02", "03"].entries()) {
			const m = await createPlan(headers, { scheduled_at: `2032-${month}-10T12:00:00.000Z` });
			await env.DB.prepare("UPDATE meetings SET created_at = ? WHERE id = ?")
				.bind(`2020-0${i + 1}-01T00:00:00.000Z`, m.id)
				.run();
			made.push(m);
		}
		const idle = await createPlan(headers, { title: "no time" });
		const [jan, feb, mar] = made as [Meeting, Meeting, Meeting];

		expect(ids(await list(headers, "?created_after=2020-02-01T00:00:00Z"))).toEqual([idle.id, mar.id, feb.id]);
		expect(ids(await list(headers, "?created_before=2020-02-01T00:00:00Z"))).toEqual([feb.id, jan.id]);
		expect(ids(await list(headers, "?created_after=2020-01-15T00:00:00Z&created_before=2020-02-15T00:00:00Z"))).toEqual([feb.id]);
		expect(ids(await list(headers, "?scheduled_after=2032-02-01T00:00:00Z"))).toEqual([mar.id, feb.id]);
		expect(ids(await list(headers, "?scheduled_before=2032-02-10T12:00:00Z"))).toEqual([feb.id, jan.id]);
		expect(ids(await list(headers, "?scheduled_after=2032-02-10T14:00:00%2B02:00&scheduled_before=2032-02-28T00:00:00Z"))).toEqual([
			feb.id,
		]);
		expect((await call("GET", "/meetings?created_after=yesterday", { headers })).status).toBe(422);
	});

	it("pages with limit and offset over the newest-first order", async () => {
		const { headers } = await userWithKey();
		const made: number[] = [];
		for (let i = 0; i < 5; i++) made.push((await createPlan(headers, { title: `m${i}` })).id);
		const newestFirst = [...made].reverse();
		expect(ids(await list(headers, "?limit=2"))).toEqual(newestFirst.slice(0, 2));
		expect(ids(await list(headers, "?limit=2&offset=2"))).toEqual(newestFirst.slice(2, 4));
		expect(ids(await list(headers, "?limit=2&offset=4"))).toEqual(newestFirst.slice(4));
		expect(await list(headers, "?offset=5")).toEqual([]);
		for (const bad of ["?limit=0", "?limit=501", "?offset=-1", "?limit=abc"]) {
			expect((await call("GET", `/meetings${bad}`, { headers })).status, bad).toBe(422);
		}
	});
});

describe("PATCH /meetings/{meeting_id}", () => {
	it("changes only the fields sent", async () => {
		const { headers, user } = await userWithKey();
		const code = meetCode();
		await joinWorkspace("ws-keep", user.id);
		const plan = await createPlan(headers, {
			title: "Old",
			notes: "keep me",
			scheduled_at: FUTURE,
			meeting_url: meetUrl(code),
			workspace_id: "ws-keep",
			auto_join: false,
		});
		const res = await call("PATCH", `/meetings/${plan.id}`, { headers, json: { title: "New" } });
		expect(res.status).toBe(200);
		const updated = await json<Meeting>(res);
		expect(updated).toEqual({ ...plan, data: { ...plan.data, title: "New" }, updated_at: updated.updated_at });
		expect(await getMeeting(headers, plan.id)).toEqual(updated);

		const moved = await json<Meeting>(await call("PATCH", `/meetings/${plan.id}`, { headers, json: { auto_join: true } }));
		expect(moved).toMatchObject({ auto_join: true, status: "scheduled", data: { title: "New", notes: "keep me", scheduled_at: FUTURE } });
	});

	it("clears a field sent as null", async () => {
		const { headers, user } = await userWithKey();
		await joinWorkspace("ws-1", user.id);
		const plan = await createPlan(headers, { title: "T", notes: "N", workspace_id: "ws-1", meeting_url: meetUrl(meetCode()) });
		const res = await call("PATCH", `/meetings/${plan.id}`, { headers, json: { notes: null, workspace_id: null, title: null } });
		expect(res.status).toBe(200);
		const cleared = await json<Meeting>(res);
		expect(cleared).toMatchObject({ notes: null, workspace_id: null, data: {}, platform: "google_meet" });
		expect(cleared.data).not.toHaveProperty("notes");
		expect(cleared.data).not.toHaveProperty("title");
	});

	it("moves between idle and scheduled with scheduled_at", async () => {
		const { headers } = await userWithKey();
		const plan = await createPlan(headers, { title: "T" });
		const scheduled = await json<Meeting>(await call("PATCH", `/meetings/${plan.id}`, { headers, json: { scheduled_at: FUTURE } }));
		expect(scheduled).toMatchObject({ status: "scheduled", data: { title: "T", scheduled_at: FUTURE } });
		const idle = await json<Meeting>(await call("PATCH", `/meetings/${plan.id}`, { headers, json: { scheduled_at: null } }));
		expect(idle.status).toBe("idle");
		expect(idle.data).toEqual({ title: "T" });
	});

	it("detaches the link with meeting_url null: platform unknown, no native id or URL", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const plan = await createPlan(headers, { meeting_url: meetUrl(code), title: "T" });
		const res = await call("PATCH", `/meetings/${plan.id}`, { headers, json: { meeting_url: null } });
		expect(res.status).toBe(200);
		expect(await json<Meeting>(res)).toMatchObject({
			platform: "unknown",
			native_meeting_id: null,
			constructed_meeting_url: null,
			data: { title: "T" },
		});
		// The link is free again.
		expect((await call("POST", "/meetings", { headers, json: { meeting_url: meetUrl(code) } })).status).toBe(201);
		// And a link can be attached again, or replaced; an unrecognized one is 422 and changes nothing.
		const other = meetCode();
		expect(
			await json<Meeting>(await call("PATCH", `/meetings/${plan.id}`, { headers, json: { meeting_url: meetUrl(other) } })),
		).toMatchObject({ platform: "google_meet", native_meeting_id: other });
		expect((await call("PATCH", `/meetings/${plan.id}`, { headers, json: { meeting_url: "https://example.com/x" } })).status).toBe(422);
		expect((await getMeeting(headers, plan.id)).native_meeting_id).toBe(other);
	});

	it("answers 404 for a meeting not owned, and changes nothing", async () => {
		const { headers } = await userWithKey();
		const other = await userWithKey();
		const theirs = await createPlan(other.headers, { title: "theirs" });
		const res = await call("PATCH", `/meetings/${theirs.id}`, { headers, json: { title: "mine now" } });
		expect(res.status).toBe(404);
		expect(await res.json()).toEqual({ detail: "Meeting not found" });
		expect((await call("PATCH", "/meetings/99999999", { headers, json: { title: "x" } })).status).toBe(404);
		expect((await getMeeting(other.headers, theirs.id)).data).toEqual({ title: "theirs" });
	});

	it("answers 409 once the bot lifecycle owns the meeting", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const plan = await createPlan(headers, { title: "T", meeting_url: meetUrl(code) });
		await sendBot(headers, code);
		for (const body of [{ title: "x" }, { scheduled_at: null }, { meeting_url: null }]) {
			const res = await call("PATCH", `/meetings/${plan.id}`, { headers, json: body });
			expect(res.status).toBe(409);
			expect(await res.json()).toEqual({ detail: "The bot lifecycle owns this meeting; it can no longer be edited as a plan" });
		}
		expect(await getMeeting(headers, plan.id)).toMatchObject({ status: "requested", native_meeting_id: code, data: { title: "T" } });
		// Terminal is no longer a plan either.
		await call("DELETE", `/bots/google_meet/${code}`, { headers });
		expect((await call("PATCH", `/meetings/${plan.id}`, { headers, json: { title: "x" } })).status).toBe(409);
	});

	it("answers 409 when the new link collides with another open meeting, and changes nothing", async () => {
		const { headers } = await userWithKey();
		const taken = meetCode();
		await createPlan(headers, { meeting_url: meetUrl(taken) });
		const own = meetCode();
		const plan = await createPlan(headers, { title: "T", meeting_url: meetUrl(own) });
		const res = await call("PATCH", `/meetings/${plan.id}`, { headers, json: { meeting_url: meetUrl(taken), title: "changed" } });
		expect(res.status).toBe(409);
		expect(await getMeeting(headers, plan.id)).toMatchObject({ native_meeting_id: own, data: { title: "T" } });
		// Re-sending its own link is no collision.
		expect((await call("PATCH", `/meetings/${plan.id}`, { headers, json: { meeting_url: meetUrl(own) } })).status).toBe(200);
	});
});

describe("DELETE /meetings/{meeting_id}", () => {
	it("removes a plan with 204; then it is gone", async () => {
		const { headers } = await userWithKey();
		const plan = await createPlan(headers, { title: "T", scheduled_at: FUTURE, meeting_url: meetUrl(meetCode()) });
		const res = await call("DELETE", `/meetings/${plan.id}`, { headers });
		expect(res.status).toBe(204);
		expect(await res.text()).toBe("");
		expect((await call("GET", `/meetings/${plan.id}`, { headers })).status).toBe(404);
		expect((await call("DELETE", `/meetings/${plan.id}`, { headers })).status).toBe(404);
	});

	it("answers 404 for a meeting not owned (even a workspace member's view), and keeps it", async () => {
		const owner = await userWithKey();
		const { headers, user } = await userWithKey();
		const workspace = `ws-${crypto.randomUUID()}`;
		await joinWorkspace(workspace, owner.user.id);
		const plan = await createPlan(owner.headers, { title: "T", workspace_id: workspace });
		await env.DB.prepare("INSERT INTO workspace_members (workspace_id, user_id) VALUES (?, ?)").bind(workspace, user.id).run();
		expect((await call("GET", `/meetings/${plan.id}`, { headers })).status).toBe(200);
		const res = await call("DELETE", `/meetings/${plan.id}`, { headers });
		expect(res.status).toBe(404);
		expect((await getMeeting(owner.headers, plan.id)).id).toBe(plan.id);
	});

	it("answers 409 for a live meeting and keeps it", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const live = await sendBot(headers, code);
		const res = await call("DELETE", `/meetings/${live.id}`, { headers });
		expect(res.status).toBe(409);
		expect((await getMeeting(headers, live.id)).status).toBe("requested");
	});
});

describe("PATCH /meetings/{platform}/{native_meeting_id}", () => {
	it("stores notes that the transcript response reads back as notes", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const started = await sendBot(headers, code);
		const res = await call("PATCH", `/meetings/google_meet/${code}`, { headers, json: { notes: "Decisions: ship Friday" } });
		expect(res.status).toBe(200);
		expect(await json<Meeting>(res)).toMatchObject({ id: started.id, notes: "Decisions: ship Friday" });

		const transcript = await json<{ id: number; notes: string | null }>(await call("GET", `/transcripts/google_meet/${code}`, { headers }));
		expect(transcript).toMatchObject({ id: started.id, notes: "Decisions: ship Friday" });

		await call("PATCH", `/meetings/google_meet/${code}`, { headers, json: { notes: null } });
		expect((await json<{ notes: string | null }>(await call("GET", `/transcripts/google_meet/${code}`, { headers }))).notes).toBeNull();
	});

	it("writes to the meeting the transcript shows when a recurring link already has the next plan", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const held = await sendBot(headers, code);
		await call("DELETE", `/bots/google_meet/${code}`, { headers });
		const next = await createPlan(headers, { title: "Next week", meeting_url: meetUrl(code), scheduled_at: FUTURE });
		const res = await call("PATCH", `/meetings/google_meet/${code}`, { headers, json: { notes: "Follow up with legal" } });
		expect((await json<Meeting>(res)).id).toBe(held.id);
		expect(await json<{ id: number; notes: string }>(await call("GET", `/transcripts/google_meet/${code}`, { headers }))).toMatchObject({
			id: held.id,
			notes: "Follow up with legal",
		});
		expect((await getMeeting(headers, next.id)).notes).toBeNull();

		// A link with only a plan: the plan takes the notes.
		const planned = meetCode();
		const plan = await createPlan(headers, { meeting_url: meetUrl(planned) });
		const onPlan = await call("PATCH", `/meetings/google_meet/${planned}`, { headers, json: { notes: "agenda" } });
		expect(await json<Meeting>(onPlan)).toMatchObject({ id: plan.id, notes: "agenda", data: { notes: "agenda" } });
	});

	it("answers 404 for a link without a meeting of the caller's", async () => {
		const { headers } = await userWithKey();
		const other = await userWithKey();
		const code = meetCode();
		await createPlan(other.headers, { meeting_url: meetUrl(code) });
		expect((await call("PATCH", `/meetings/google_meet/${code}`, { headers, json: { notes: "x" } })).status).toBe(404);
		expect((await call("GET", `/transcripts/google_meet/${code}`, { headers })).status).toBe(404);
	});

	it("answers 404 from GET /transcripts for a meeting that was only planned", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		await createPlan(headers, { meeting_url: meetUrl(code) });
		const res = await call("GET", `/transcripts/google_meet/${code}`, { headers });
		expect(res.status).toBe(404);
	});
});

describe("at most one non-terminal meeting per user and link, in the database", () => {
	const insert = (userId: number, code: string, status: string) =>
		env.DB.prepare(
			"INSERT INTO meetings (user_id, platform, native_meeting_id, status, created_at, updated_at) VALUES (?, 'google_meet', ?, ?, '2030-01-01T00:00:00Z', '2030-01-01T00:00:00Z')",
		)
			.bind(userId, code, status)
			.run();

	it("refuses a second open row inserted directly, and allows terminal duplicates", async () => {
		const { user } = await userWithKey();
		const code = meetCode();
		await insert(user.id, code, "scheduled");
		await expect(insert(user.id, code, "active")).rejects.toThrow(/UNIQUE constraint failed/);
		await insert(user.id, code, "completed");
		await insert(user.id, code, "failed");
		await insert(user.id, code, "completed");
		const other = await userWithKey();
		await insert(other.user.id, code, "active");
		const rows = await env.DB.prepare("SELECT status FROM meetings WHERE user_id = ? AND native_meeting_id = ? ORDER BY id")
			.bind(user.id, code)
			.all<{ status: string }>();
		expect(rows.results.map((r) => r.status)).toEqual(["scheduled", "completed", "failed", "completed"]);
		// Rows without a link never collide.
		for (let i = 0; i < 2; i++) {
			await env.DB.prepare(
				"INSERT INTO meetings (user_id, platform, status, created_at, updated_at) VALUES (?, 'unknown', 'idle', '2030-01-01T00:00:00Z', '2030-01-01T00:00:00Z')",
			)
				.bind(user.id)
				.run();
		}
	});

	it("refuses to migrate data that already breaks the rule, naming the duplicates, and applies once it is resolved", async () => {
		const db = env.DUP_DB;
		const uniqueness = env.TEST_MIGRATIONS.findIndex((m) => m.name.startsWith("0004_"));
		expect(uniqueness).toBeGreaterThan(0);
		const before = env.TEST_MIGRATIONS.slice(0, uniqueness);
		const rest = env.TEST_MIGRATIONS.slice(uniqueness);
		await applyD1Migrations(db, before);
		const at = "2030-01-01T00:00:00Z";
		await db.batch([
			db.prepare("INSERT INTO users (id, email, created_at) VALUES (7, 'a@example.com', ?), (8, 'b@example.com', ?)").bind(at, at),
			...[
				[7, "google_meet", "abc-defg-hij", "active"],
				[7, "google_meet", "abc-defg-hij", "scheduled"],
				[7, "zoom", "85512345678", "completed"],
				[7, "zoom", "85512345678", "completed"],
				[7, "zoom", "85512345678", "requested"],
				[8, "google_meet", "abc-defg-hij", "active"],
				[8, "teams", "9876543210", "idle"],
				[8, "teams", "9876543210", "joining"],
			].map(([user, platform, native, status]) =>
				db
					.prepare("INSERT INTO meetings (user_id, platform, native_meeting_id, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)")
					.bind(user, platform, native, status, at, at),
			),
		]);

		const failure = await applyD1Migrations(db, rest).then(
			() => undefined,
			(err: unknown) => (err instanceof Error ? `${err.message} ${(err.cause as Error | undefined)?.message ?? ""}` : String(err)),
		);
		expect(failure).toBeDefined();
		expect(failure).toContain("DUPLICATE");
		expect(failure).toContain("7/google_meet/abc-defg-hij");
		expect(failure).toContain("8/teams/9876543210");
		expect(failure).not.toContain("zoom");
		expect(failure).not.toContain("8/google_meet");
		// Nothing of the failed migration is in place: no index, not recorded as applied.
		const index = await db.prepare("SELECT name FROM sqlite_master WHERE name = 'meetings_one_open_per_link'").first();
		expect(index).toBeNull();

		await db.prepare("UPDATE meetings SET status = 'completed' WHERE status IN ('scheduled', 'idle')").run();
		await applyD1Migrations(db, rest);
		expect(await db.prepare("SELECT name FROM sqlite_master WHERE name = 'meetings_one_open_per_link'").first()).toEqual({
			name: "meetings_one_open_per_link",
		});
		await expect(
			db
				.prepare(
					"INSERT INTO meetings (user_id, platform, native_meeting_id, status, created_at, updated_at) VALUES (7, 'google_meet', 'abc-defg-hij', 'idle', ?, ?)",
				)
				.bind(at, at)
				.run(),
		).rejects.toThrow(/UNIQUE constraint failed/);
	});
});
