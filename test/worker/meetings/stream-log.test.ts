import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MeetingStream } from "../../../durable-objects/meeting-stream";
import { RECENT_EVENTS, RETAINED_EVENTS, StreamLog, transcriptLine } from "../../../durable-objects/meeting-stream/log";
import { STREAM_TABLE } from "../../../durable-objects/meeting-stream/storage";
import type { MeetingStreamEvent as Frame, MeetingStreamBody, StreamTranscript } from "../../../src/agent/meeting-stream-events";
import { SseReader } from "../agent/sse";
import { segment } from "./helpers";

const line = (n: number): StreamTranscript => ({
	type: "transcript",
	id: `s-${n}`,
	speaker: "Alice",
	text: `line ${n}`,
	t: n,
	tsMs: 1_700_000_000_000 + n,
	completed: true,
});

/** Whoever opens the streams here: these tests are about the log, not access. */
const READER = { userId: 1, tokenId: 1 };

const note = (id: string, pass: number): MeetingStreamBody => ({
	type: "note",
	note: { id, text: `${id} pass ${pass}`, pass, frozen: false },
});

/** Runs `work` inside a fresh MeetingStream's storage: the SQLite its log lives in. */
function inFreshStream<T>(work: (sql: SqlStorage) => Promise<T>): Promise<T> {
	const stream = env.MEETING_STREAM.get(env.MEETING_STREAM.newUniqueId());
	return runInDurableObject(stream, (_stream: MeetingStream, state) => work(state.storage.sql));
}

/** The next `n` events of a stream, then the stream is cancelled (an unread body breaks the pool: workers-sdk #5629). */
async function take(response: Response, n: number): Promise<{ id: number; frame: Frame }[]> {
	const reader = new SseReader<Frame>(response);
	try {
		const events: { id: number; frame: Frame }[] = [];
		while (events.length < n) {
			const event = await reader.next();
			if (!event) break;
			events.push(event);
		}
		return events;
	} finally {
		await reader.cancel();
	}
}

describe("the MeetingStream's log", () => {
	it("numbers events in one sequence across sources, and lists the transcript after a cursor", async () => {
		await inFreshStream(async (sql) => {
			const stream = new StreamLog(sql, 60_000);
			expect(stream.lastSeq()).toBe(0);
			expect(stream.append(line(1))).toBe(1);
			expect(stream.append(note("s-1", 0))).toBe(2);
			expect(stream.append(line(2))).toBe(3);
			expect(
				stream.append({ type: "card", card: { id: "card-1", kind: "person", title: "Alice", body: "", actionable: false }, turn_id: "t1" }),
			).toBe(4);
			expect(stream.append(line(3))).toBe(5);
			expect(stream.lastSeq()).toBe(5);
			expect(stream.transcriptAfter(1, 10)).toEqual([
				{ seq: 3, event: line(2) },
				{ seq: 5, event: line(3) },
			]);
			expect(stream.transcriptAfter(0, 1)).toEqual([{ seq: 1, event: line(1) }]);
		});
	});

	it("resumes after an id with exactly the later events, then goes live", async () => {
		await inFreshStream(async (sql) => {
			const stream = new StreamLog(sql, 60_000);
			for (let n = 1; n <= 5; n++) stream.append(line(n));
			const response = stream.open(3, READER);
			expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
			expect(response.headers.get("content-encoding")).toBe("identity");
			stream.append(line(6));
			const events = await take(response, 3);
			expect(events.map((e) => e.id)).toEqual([4, 5, 6]);
			expect(events.map((e) => (e.frame as StreamTranscript).text)).toEqual(["line 4", "line 5", "line 6"]);
			expect(stream.readers()).toBe(0);
		});
	});

	it("resumes exactly from the same storage after the object is rebuilt (an eviction)", async () => {
		await inFreshStream(async (sql) => {
			const before = new StreamLog(sql, 60_000);
			for (let n = 1; n <= 4; n++) before.append(line(n));
			const first = await take(before.open(null, READER), 2);
			const after = new StreamLog(sql, 60_000);
			after.append(line(5));
			const resumed = await take(after.open(first.at(-1)?.id ?? 0, READER), 3);
			expect(resumed.map((e) => e.id)).toEqual([3, 4, 5]);
		});
	});

	it("replays the recent events and every note's newest version on a fresh connect", async () => {
		await inFreshStream(async (sql) => {
			const stream = new StreamLog(sql, 60_000);
			stream.append(note("s-0", 0));
			stream.append(note("s-0", 1));
			stream.append(note("s-x", 0));
			for (let n = 1; n <= RECENT_EVENTS + 50; n++) stream.append(line(n));
			const last = stream.lastSeq();
			const events = await take(stream.open(null, READER), 2 + RECENT_EVENTS);
			expect(events.slice(0, 2).map((e) => e.frame)).toEqual([note("s-0", 1), note("s-x", 0)]);
			expect(events.slice(2).map((e) => e.id)).toEqual(Array.from({ length: RECENT_EVENTS }, (_, i) => last - RECENT_EVENTS + 1 + i));
		});
	});

	it("logs a meeting's end once", async () => {
		await inFreshStream(async (sql) => {
			const stream = new StreamLog(sql, 60_000);
			stream.append(line(1));
			const end = stream.append({ type: "meeting-end", status: "completed", completion_reason: "stopped" });
			expect(stream.append({ type: "meeting-end", status: "completed", completion_reason: "stopped" })).toBe(end);
			expect(stream.lastSeq()).toBe(end);
		});
	});

	it("logs nothing after a meeting's end: a late line or note is not logged, so the end stays last", async () => {
		await inFreshStream(async (sql) => {
			const stream = new StreamLog(sql, 60_000);
			stream.append(line(1));
			const end = stream.append({ type: "meeting-end", status: "completed", completion_reason: "left_alone" });
			expect(stream.append(line(2))).toBe(end);
			expect(stream.append(note("s-2", 0))).toBe(end);
			expect(stream.lastSeq()).toBe(end);
			expect((await take(stream.open(null, READER), 10)).map((e) => e.frame.type)).toEqual(["transcript", "meeting-end"]);
		});
	});

	it("closes every open stream after the meeting's end; a stream opened after it replays to the end and closes", async () => {
		await inFreshStream(async (sql) => {
			const stream = new StreamLog(sql, 60_000);
			stream.append(line(1));
			const reader = new SseReader<Frame>(stream.open(null, READER));
			expect(stream.ended()).toBe(false);
			const end = stream.end({ status: "completed", completion_reason: "stopped" });
			const ended = { type: "meeting-end", status: "completed", completion_reason: "stopped" };
			expect(await reader.rest()).toEqual([
				{ id: 1, frame: line(1) },
				{ id: end, frame: ended },
			]);
			expect(stream.ended()).toBe(true);
			expect(stream.readers()).toBe(0);
			const late = new SseReader<Frame>(stream.open(null, READER));
			expect((await late.rest()).map((e) => e.id)).toEqual([1, end]);
			expect(await new SseReader<Frame>(stream.open(end, READER)).rest()).toEqual([]);
			expect(stream.readers()).toBe(0);
		});
	});

	it("bounds the log: the newest events, the newest note versions and the end stay", async () => {
		await inFreshStream(async (sql) => {
			const stream = new StreamLog(sql, 60_000);
			stream.append(note("s-old", 0));
			stream.append(note("s-old", 1));
			const total = RETAINED_EVENTS + 300;
			for (let n = 1; n <= total; n++) stream.append(line(n));
			const rows = sql.exec<{ count: number }>(`SELECT count(*) AS count FROM ${STREAM_TABLE}`).one().count;
			expect(rows).toBeLessThanOrEqual(RETAINED_EVENTS + 100 + 1);
			expect(rows).toBeGreaterThanOrEqual(RETAINED_EVENTS);
			const notes = sql.exec<{ data: string }>(`SELECT data FROM ${STREAM_TABLE} WHERE type = 'note'`).toArray();
			expect(notes.map((r) => JSON.parse(r.data))).toEqual([note("s-old", 1)]);
			expect(stream.transcriptAfter(0, 1)[0]?.seq).toBeGreaterThan(2);
		});
	});

	it("pings a quiet stream with the last id it sent, and closes it after the idle limit", async () => {
		await inFreshStream(async (sql) => {
			const stream = new StreamLog(sql, 50, 400);
			stream.append(line(1));
			stream.append(line(2));
			const reader = new SseReader<Frame>(stream.open(1, READER));
			try {
				expect((await reader.next())?.id).toBe(2);
				const ping = await reader.next();
				expect(ping).toEqual({ id: 2, frame: { type: "ping" } });
				const rest = await reader.rest();
				expect(rest.length).toBeGreaterThan(0);
				expect(rest.every((e) => e.frame.type === "ping" && e.id === 2)).toBe(true);
				expect(stream.readers()).toBe(0);
			} finally {
				await reader.cancel();
			}
		});
	});

	it("maps a bot segment to a transcript line, stamped now when its wall-clock start is unreadable", () => {
		const at = "2026-01-02T03:04:05.000Z";
		expect(transcriptLine({ ...segment({ segment_id: "a", start: 3.5 }), absolute_start_time: at })).toEqual({
			type: "transcript",
			id: "a",
			speaker: "Alice",
			text: "Hello.",
			t: 3.5,
			tsMs: Date.parse(at),
			completed: true,
		});
		const before = Date.now();
		const stamped = transcriptLine({ ...segment({}), absolute_start_time: "not a time" });
		expect(stamped.tsMs).toBeGreaterThanOrEqual(before);
	});
});
