/**
 * POST /agent[/api]/meeting/process as the reference's clients drive it
 * (docs/meeting-stream.md#the-copilot): `on:true` is spawn-or-touch, `on:false` with nothing
 * running is a success, `meeting_id` may be the record id, and a `subject` is ignored.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MeetingStream } from "../../../durable-objects/meeting-stream";
import { STREAM_KEYS } from "../../../durable-objects/meeting-stream/storage";
import { type Meeting, meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { createPlan, getMeeting, liveMeeting, meetUrl } from "../meetings/helpers";
import { call, json, sharedWorkspace, streamOf, userWithKey } from "../support";
import { copilotOwner, ofType, processCopilot, said, startCopilot, streamEvents } from "./copilot-helpers";

const OWNER_ONLY = { detail: "Only the meeting's owner can start, pause or resume its copilot" };

const process = (headers: Record<string, string>, body: Record<string, unknown>, path = "/agent/meeting/process") =>
	call("POST", path, { headers, json: { platform: "google_meet", ...body } });

const storedCopilot = (meetingId: number) =>
	runInDurableObject(streamOf(meetingId), (_stream: MeetingStream, state) =>
		state.storage.get<{ processing: boolean; caller: { userId: number } }>(STREAM_KEYS.copilot),
	);

const listed = async (headers: Record<string, string>) =>
	(await json<{ meetings: Meeting[] }>(await call("GET", "/meetings", { headers }))).meetings;

describe("process on: spawn-or-touch", () => {
	it("starts the copilot in a live meeting that has none, and it catches up on what was said before", async () => {
		const owner = await copilotOwner(false);
		const live = await liveMeeting(owner.headers);
		await live.bot.send(said("s-1", "Alice", "said before the copilot"));
		const res = await processCopilot(owner.headers, live.code, true);
		expect(res.status).toBe(202);
		expect(await json(res)).toEqual({
			processing: true,
			resumed_from: "0",
			native_id: live.code,
			meeting_id: live.code,
			meeting: live.meeting.id,
		});
		expect(await storedCopilot(live.meeting.id)).toMatchObject({ processing: true, caller: { userId: owner.user.id } });
		await live.bot.send(said("s-2", "Bob", "said after", 2));
		const notes = await eventually("both notes", async () => {
			const found = ofType(await streamEvents(live.meeting.id), "note");
			return found.length >= 2 ? found : undefined;
		});
		expect(notes.map((n) => n.note.id)).toEqual(["s-1", "s-2"]);
		// Relay health knows the copilot, as it knows one meeting/start started.
		const health = await json<{ ingest: { segments: number } }>(
			await call("GET", "/agent/meeting/relay-health", { headers: owner.headers }),
		);
		expect(health.ingest.segments).toBeGreaterThan(0);

		// Touching it again resumes the same copilot from its cursor.
		const again = await processCopilot(owner.headers, live.code, true);
		const cursor = (await streamEvents(live.meeting.id)).filter((e) => e.event.type === "transcript").at(-1)?.seq;
		expect(await json(again)).toMatchObject({ processing: true, resumed_from: String(cursor), meeting: live.meeting.id });
	});

	it("plans the link as meeting/start does when the caller has no meeting on it, and a bot sent later claims that plan", async () => {
		const owner = await copilotOwner(false);
		const code = meetCode();
		const res = await processCopilot(owner.headers, code, true);
		expect(res.status).toBe(202);
		const body = await json<{ meeting: number }>(res);
		expect(body).toMatchObject({ processing: true, resumed_from: "0", native_id: code });
		expect(await getMeeting(owner.headers, body.meeting)).toMatchObject({ status: "idle", native_meeting_id: code });
		const sent = await call("POST", "/bots", { headers: owner.headers, json: { platform: "google_meet", native_meeting_id: code } });
		expect((await json<Meeting>(sent)).id).toBe(body.meeting);
	});

	it("keeps the owner rule: a member reading the owner's open meeting gets 403 and starts nothing", async () => {
		const owner = await userWithKey();
		const member = await copilotOwner(false);
		const team = await sharedWorkspace(owner.user.id, member.user.id);
		const code = meetCode();
		const plan = await createPlan(owner.headers, { meeting_url: meetUrl(code), workspace_id: team });
		for (const on of [true, false]) {
			const res = await processCopilot(member.headers, code, on);
			expect(res.status).toBe(403);
			expect(await res.json()).toEqual(OWNER_ONLY);
		}
		const byId = await process(member.headers, { native_id: code, on: true, meeting_id: String(plan.id) });
		expect(byId.status).toBe(403);
		expect(await byId.json()).toEqual(OWNER_ONLY);
		expect(await storedCopilot(plan.id)).toBeUndefined();
		expect((await listed(member.headers)).map((m) => m.id)).toEqual([plan.id]);
	});
});

describe("process off", () => {
	it("answers processing false when no copilot runs, and makes nothing", async () => {
		const owner = await copilotOwner(false);
		const code = meetCode();
		const none = await processCopilot(owner.headers, code, false);
		expect(none.status).toBe(202);
		expect(await json(none)).toEqual({ processing: false, native_id: code, meeting_id: code, meeting: null });
		expect(await listed(owner.headers)).toEqual([]);

		const live = await liveMeeting(owner.headers);
		const idle = await processCopilot(owner.headers, live.code, false);
		expect(await json(idle)).toEqual({ processing: false, native_id: live.code, meeting_id: live.code, meeting: live.meeting.id });
		expect(await storedCopilot(live.meeting.id)).toBeUndefined();
	});
});

describe("what the body may carry", () => {
	it("takes meeting_id as the record id (what POST /bots answers) as well as the native id, on the legacy /api path too", async () => {
		const owner = await copilotOwner(false);
		const live = await liveMeeting(owner.headers);
		for (const meetingId of [String(live.meeting.id), live.code]) {
			const res = await process(owner.headers, { native_id: live.code, on: true, meeting_id: meetingId }, "/api/meeting/process");
			expect(res.status, meetingId).toBe(202);
			expect(await json(res)).toMatchObject({ processing: true, meeting: live.meeting.id });
		}
		const off = await process(owner.headers, { native_id: live.code, on: false, meeting_id: String(live.meeting.id) });
		expect(await json(off)).toMatchObject({ processing: false, meeting: live.meeting.id });
		expect(await storedCopilot(live.meeting.id)).toMatchObject({ processing: false });
	});

	it("refuses a meeting_id that is neither: another link's record, another user's, or no number, with a field error", async () => {
		const owner = await copilotOwner(false);
		const live = await liveMeeting(owner.headers);
		const other = await liveMeeting(owner.headers);
		const stranger = await liveMeeting((await userWithKey()).headers);
		for (const meetingId of [String(other.meeting.id), String(stranger.meeting.id), "not-this", "999999999"]) {
			const res = await process(owner.headers, { native_id: live.code, on: true, meeting_id: meetingId });
			expect(res.status, meetingId).toBe(422);
			expect(await res.json()).toEqual({
				detail: [
					{
						loc: ["body", "meeting_id"],
						msg: "meeting_id must be the native id, or the id of a meeting of yours on that link",
						type: "value_error",
					},
				],
			});
		}
		expect(await storedCopilot(live.meeting.id)).toBeUndefined();
	});

	it("answers 409 for on:true naming a meeting that has ended without a copilot", async () => {
		const owner = await copilotOwner(false);
		const live = await liveMeeting(owner.headers);
		await live.bot.status("completed", { completion_reason: "left_alone" });
		const res = await process(owner.headers, { native_id: live.code, on: true, meeting_id: String(live.meeting.id) });
		expect(res.status).toBe(409);
		expect(await res.json()).toEqual({ detail: `Meeting ${live.meeting.id} has ended: a copilot starts only in a meeting that has not` });
		expect(await storedCopilot(live.meeting.id)).toBeUndefined();
	});

	it("answers 409 for on:true naming an ended meeting by its native id alone, and plans nothing on the link", async () => {
		const owner = await copilotOwner(false);
		const live = await liveMeeting(owner.headers);
		await live.bot.status("completed", { completion_reason: "left_alone" });
		for (const body of [
			{ native_id: live.code, on: true },
			{ native_id: live.code, on: true, meeting_id: live.code },
		]) {
			const res = await process(owner.headers, body);
			expect(res.status, JSON.stringify(body)).toBe(409);
			expect(await res.json()).toEqual({
				detail: `Meeting ${live.meeting.id} has ended: a copilot starts only in a meeting that has not (meeting/start plans a new one on the link)`,
			});
		}
		expect(await storedCopilot(live.meeting.id)).toBeUndefined();
		// No phantom plan: the link is free for POST /meetings.
		expect((await listed(owner.headers)).map((m) => m.id)).toEqual([live.meeting.id]);
		const plan = await call("POST", "/meetings", { headers: owner.headers, json: { meeting_url: meetUrl(live.code) } });
		expect(plan.status).toBe(201);
	});

	it("ignores a subject in the bodies of start and process, as the reference does", async () => {
		const owner = await copilotOwner(false);
		const code = meetCode();
		const started = await call("POST", "/agent/api/meeting/start", {
			headers: owner.headers,
			json: { native_id: code, platform: "google_meet", subject: "u_someone_else" },
		});
		expect(started.status).toBe(202);
		const { meeting } = await json<{ meeting: number }>(started);
		const res = await process(owner.headers, { native_id: code, on: false, subject: "u_someone_else" });
		expect(res.status).toBe(202);
		expect(await json(res)).toMatchObject({ processing: false, meeting });
		expect((await startCopilot(owner.headers, code)).meeting).toBe(meeting);
	});
});
