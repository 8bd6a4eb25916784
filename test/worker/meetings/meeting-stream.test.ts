import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import type { MeetingStream } from "../../../durable-objects/meeting-stream";
import { STREAM_TABLE } from "../../../durable-objects/meeting-stream/storage";
import type { MeetingStreamEvent as Frame, StreamTranscript } from "../../../src/agent/meeting-stream-events";
import { type Meeting, meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { readToTheEnd, SseReader } from "../agent/sse";
import { call, json, roomOf, streamOf, userWithKey } from "../support";
import { SimulatedBot } from "./bot-sim";
import { getMeeting, liveMeeting, segment, sendBot, unheldRequestedMeeting, workspaceMeeting } from "./helpers";

type Event = { id: number; frame: Frame };

const streamPath = (query: Record<string, string | number>, prefix = "/agent/api") =>
	`${prefix}/meeting/stream?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`;

function openStream(headers: Record<string, string>, query: Record<string, string | number>, lastEventId?: number, prefix?: string) {
	return call("GET", streamPath(query, prefix), {
		headers: lastEventId === undefined ? headers : { ...headers, "Last-Event-ID": String(lastEventId) },
	});
}

/** Reads events until `done` says so (pings are kept only when `pings`), then cancels the body (workers-sdk #5629). */
async function readUntil(response: Response, done: (events: Event[]) => boolean, pings = false): Promise<Event[]> {
	expect(response.status).toBe(200);
	const reader = new SseReader<Frame>(response);
	const events: Event[] = [];
	try {
		while (!done(events)) {
			const event = await reader.next();
			if (!event) break;
			if (event.frame.type !== "ping" || pings) events.push(event);
		}
		return events;
	} finally {
		await reader.cancel();
	}
}

/** The meeting-end events in a meeting's log, read from its MeetingStream's storage (not through the route, which may add one itself). */
const loggedEnds = (meetingId: number) =>
	runInDurableObject(streamOf(meetingId), (_stream: MeetingStream, state) =>
		state.storage.sql
			.exec<{ data: string }>(`SELECT data FROM ${STREAM_TABLE} WHERE type = 'meeting-end'`)
			.toArray()
			.map((row) => JSON.parse(row.data) as unknown),
	);

const texts = (events: Event[]) => events.map((e) => (e.frame.type === "transcript" ? e.frame.text : e.frame.type));

async function sayLines(bot: SimulatedBot, from: number, to: number) {
	for (let n = from; n <= to; n++) await bot.send({ type: "segment", segment: segment({ segment_id: `s-${n}`, text: `line ${n}` }) });
}

describe("GET /agent/api/meeting/stream", () => {
	it("streams the bot's segments as transcript events with ids, live and on a fresh connect", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		await sayLines(bot, 1, 2);
		const res = await openStream(headers, { meeting_id: meeting.id, session_uid: code });
		expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
		expect(res.headers.get("content-encoding")).toBe("identity");
		const reading = readUntil(res, (events) => events.length >= 3);
		await sayLines(bot, 3, 3);
		const events = await reading;
		expect(texts(events)).toEqual(["line 1", "line 2", "line 3"]);
		const first = events[0]?.frame as StreamTranscript;
		expect(first).toMatchObject({ type: "transcript", id: "s-1", speaker: "Alice", t: 1, completed: true });
		expect(events.map((e) => e.id)).toEqual([1, 2, 3]);
	});

	it("resumes after Last-Event-ID with exactly the missed events (header or query), no duplicates", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		await sayLines(bot, 1, 3);
		const seen = await readUntil(await openStream(headers, { meeting_id: meeting.id, session_uid: code }), (e) => e.length >= 2);
		const last = seen.at(-1)?.id ?? 0;
		await sayLines(bot, 4, 6);
		const resumed = await readUntil(await openStream(headers, { meeting_id: meeting.id, session_uid: code }, last), (e) => e.length >= 4);
		expect(texts(resumed)).toEqual(["line 3", "line 4", "line 5", "line 6"]);
		expect(new Set([...seen, ...resumed].map((e) => e.id)).size).toBe(6);
		const byQuery = await readUntil(
			await openStream(headers, { meeting_id: meeting.id, last_event_id: resumed.at(-2)?.id ?? 0 }),
			(e) => e.length >= 1,
		);
		expect(texts(byQuery)).toEqual(["line 6"]);
	});

	it("resumes exactly across the room and the stream object being evicted", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		await sayLines(bot, 1, 2);
		const seen = await readUntil(await openStream(headers, { meeting_id: meeting.id, session_uid: code }), (e) => e.length >= 2);
		// Both objects go away with everything in their memory (the bot's socket, open streams); only their storage stays.
		await runInDurableObject(roomOf(meeting.id), (_room: MeetingRoom, state) => state.abort("evicted by the test")).catch(() => undefined);
		await runInDurableObject(streamOf(meeting.id), (_stream: MeetingStream, state) => state.abort("evicted by the test")).catch(
			() => undefined,
		);
		// The bot reconnects and resends from its last ack (status active, two segments), as it does after any drop.
		await eventually("the old bot socket closed by the eviction", () => bot.channel.closed);
		const back = await SimulatedBot.connect(bot.spawn, 3);
		await sayLines(back, 3, 4);
		const resumed = await readUntil(await openStream(headers, { meeting_id: meeting.id }, seen.at(-1)?.id), (e) => e.length >= 2);
		expect(resumed.map((e) => [e.id, texts([e])[0]])).toEqual([
			[3, "line 3"],
			[4, "line 4"],
		]);
	});

	it("ends with a meeting-end event when the bot reports the end", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		await sayLines(bot, 1, 1);
		const reading = readUntil(await openStream(headers, { meeting_id: meeting.id, session_uid: code }), (e) =>
			e.some((x) => x.frame.type === "meeting-end"),
		);
		await bot.status("completed", { completion_reason: "left_alone" });
		const events = await reading;
		expect(texts(events)).toEqual(["line 1", "meeting-end"]);
		expect(events[1]?.frame).toEqual({ type: "meeting-end", status: "completed", completion_reason: "left_alone" });
	});

	it("closes after the meeting-end, the last event, for a live reader, a late one (backlog, end, close) and one resuming after the end", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		await sayLines(bot, 1, 2);
		const query = { meeting_id: meeting.id, session_uid: code };
		const reading = readToTheEnd<Frame>(await openStream(headers, query));
		await bot.status("completed", { completion_reason: "left_alone" });
		const live = await reading;
		expect(texts(live)).toEqual(["line 1", "line 2", "meeting-end"]);
		expect(await readToTheEnd<Frame>(await openStream(headers, query))).toEqual(live);
		expect(await readToTheEnd<Frame>(await openStream(headers, query, live[0]?.id))).toEqual(live.slice(1));
		expect(await readToTheEnd<Frame>(await openStream(headers, query, live.at(-1)?.id))).toEqual([]);
	});

	it("pings a quiet stream with the last event's id", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await liveMeeting(headers);
		await sayLines(bot, 1, 1);
		const events = await readUntil(
			await openStream(headers, { meeting_id: meeting.id }),
			(e) => e.filter((x) => x.frame.type === "ping").length >= 2,
			true,
		);
		expect(events[0]).toMatchObject({ id: 1, frame: { type: "transcript" } });
		expect(events.slice(1)).toEqual([
			{ id: 1, frame: { type: "ping" } },
			{ id: 1, frame: { type: "ping" } },
		]);
	});
});

describe("who may read a meeting's stream", () => {
	it("answers 404 to another user, for our id and for the native id, and 200 to a workspace member", async () => {
		const { member, meeting, bot, code } = await workspaceMeeting();
		const stranger = await userWithKey();
		await sayLines(bot, 1, 1);
		for (const query of [{ meeting_id: meeting.id }, { meeting_id: code, session_uid: code }] as Record<string, string | number>[]) {
			const res = await openStream(stranger.headers, query);
			expect(res.status).toBe(404);
			expect(await res.json()).toEqual({ detail: "Meeting not found" });
		}
		const events = await readUntil(await openStream(member.headers, { meeting_id: meeting.id, session_uid: code }), (e) => e.length >= 1);
		expect(texts(events)).toEqual(["line 1"]);
	});

	it("takes session_uid as the record id too, as the reference's own client sends it", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		await sayLines(bot, 1, 1);
		for (const query of [
			{ meeting_id: code, session_uid: meeting.id },
			{ meeting_id: meeting.id, session_uid: meeting.id },
		]) {
			expect(texts(await readUntil(await openStream(headers, query), (e) => e.length >= 1))).toEqual(["line 1"]);
		}
	});

	it("finds a meeting by its native id (meeting_id == session_uid == native_id), on the short path too", async () => {
		const { headers } = await userWithKey();
		const { bot, code } = await liveMeeting(headers);
		await sayLines(bot, 1, 1);
		const events = await readUntil(
			await openStream(headers, { meeting_id: code, session_uid: code }, undefined, "/agent"),
			(e) => e.length >= 1,
		);
		expect(texts(events)).toEqual(["line 1"]);
	});

	it("answers 404 when session_uid is not the meeting's, and for an unknown meeting", async () => {
		const { headers } = await userWithKey();
		const { meeting } = await liveMeeting(headers);
		const unknown: Record<string, string | number>[] = [
			{ meeting_id: meeting.id, session_uid: meetCode() },
			{ meeting_id: 999_999_999 },
			{ meeting_id: meetCode() },
		];
		for (const query of unknown) {
			const res = await openStream(headers, query);
			expect(res.status).toBe(404);
			expect(await res.json()).toEqual({ detail: "Meeting not found" });
		}
	});

	it("answers 422 {detail} without meeting_id or with an unreadable Last-Event-ID", async () => {
		const { headers } = await userWithKey();
		const { meeting } = await liveMeeting(headers);
		const missing = await call("GET", "/agent/api/meeting/stream", { headers });
		expect(missing.status).toBe(422);
		expect(JSON.stringify(await missing.json())).toContain("meeting_id");
		for (const bad of ["abc", "-1", "1.5"]) {
			const garbage = await call("GET", streamPath({ meeting_id: meeting.id }), { headers: { ...headers, "Last-Event-ID": bad } });
			expect(garbage.status).toBe(422);
			expect(await garbage.json()).toEqual({
				detail: [{ loc: ["header", "Last-Event-ID"], msg: "must be a non-negative integer", type: "value_error" }],
			});
		}
	});
});

describe("the stream of a meeting that has ended", () => {
	it("opens with 200 and the meeting-end for the reference probe's S6 (numeric id and session_uid from GET /meetings)", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await liveMeeting(headers);
		await bot.status("failed", { completion_reason: "evicted", reason: "removed" });
		const record = await getMeeting(headers, meeting.id);
		expect(record.status).toBe("failed");
		const listed = (await json<{ meetings: (Meeting & { session_uid: string })[] }>(await call("GET", "/meetings", { headers }))).meetings;
		const probe = listed.find((m) => m.id === meeting.id);
		if (!probe) throw new Error("the meeting is not listed");
		const res = await openStream(headers, { meeting_id: probe.id, session_uid: probe.session_uid }, undefined, "/agent");
		expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
		const events = await readUntil(res, (e) => e.length >= 1);
		expect(events[0]?.frame).toEqual({ type: "meeting-end", status: "failed", completion_reason: "evicted" });
	});

	it("gives a meeting that ended before its room kept a log its meeting-end when the stream opens", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		await bot.status("completed", { completion_reason: "left_alone", reason: "the host ended the meeting" });
		// As a meeting that ended before the stream existed: nothing of it is in its log.
		await runInDurableObject(streamOf(meeting.id), (_stream: MeetingStream, state) => {
			state.storage.sql.exec(`DELETE FROM ${STREAM_TABLE}`);
		});
		const open = () => openStream(headers, { meeting_id: meeting.id, session_uid: code });
		const events = await readUntil(await open(), (e) => e.length >= 1);
		expect(events.map((e) => e.frame)).toEqual([{ type: "meeting-end", status: "completed", completion_reason: "left_alone" }]);
		// Opened again, the end is not logged twice.
		expect(await readUntil(await open(), (e) => e.length >= 1)).toEqual(events);
		expect(await loggedEnds(meeting.id)).toHaveLength(1);
	});

	it("logs the end of a meeting stopped while its bot channel is closed", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const meeting = await sendBot(headers, code);
		const stopped = await call("DELETE", `/bots/google_meet/${code}`, { headers });
		expect(stopped.status).toBeLessThan(300);
		await eventually("completed", async () => ((await getMeeting(headers, meeting.id)).status === "completed" ? true : undefined));
		expect(await loggedEnds(meeting.id)).toEqual([{ type: "meeting-end", status: "completed", completion_reason: "stopped" }]);
		const events = await readUntil(await openStream(headers, { meeting_id: meeting.id, session_uid: code }), (e) => e.length >= 1);
		expect(texts(events)).toEqual(["meeting-end"]);
	});

	it("logs the end of a live meeting no room holds, stopped through DELETE /bots", async () => {
		const { headers, user } = await userWithKey();
		const code = meetCode();
		const id = await unheldRequestedMeeting(user.id, code);
		expect((await call("DELETE", `/bots/google_meet/${code}`, { headers })).status).toBe(204);
		expect((await getMeeting(headers, id)).status).toBe("completed");
		expect(await loggedEnds(id)).toEqual([{ type: "meeting-end", status: "completed", completion_reason: "stopped" }]);
	});
});
