/**
 * The meeting's SSE stream (docs/meeting-stream.md#events-and-resume). One log in the MeetingStream's
 * SQLite storage holds every event of every merged source (transcript, the copilot's notes,
 * cards and model output, the meeting's end), so one sequence number, the SSE `id:`, is an
 * exact cursor for `Last-Event-ID`, across evictions too.
 */
import { SSE_HEADERS, sseEvent } from "../../src/agent/frames";
import type { MeetingEnd, MeetingStreamBody, StreamAccessEnded, StreamPing, StreamTranscript } from "../../src/agent/meeting-stream-events";
import type { BotSegment } from "../../src/bot-channel/protocol";
import { STREAM_TABLE } from "./storage";

// Declared beside the stream's readers (the dashboard, the tests); passed on for the room's other parts.
export type {
	CopilotCard,
	CopilotNote,
	MeetingEnd,
	MeetingStreamBody,
	StreamAccessEnded,
	StreamPing,
	StreamTranscript,
} from "../../src/agent/meeting-stream-events";

/** A segment from the bot as the stream's transcript event. */
export function transcriptLine(segment: BotSegment): StreamTranscript {
	const at = segment.absolute_start_time ? Date.parse(segment.absolute_start_time) : Number.NaN;
	return {
		type: "transcript",
		id: segment.segment_id,
		speaker: segment.speaker,
		text: segment.text,
		t: segment.start,
		// A segment without a (readable) wall-clock start is stamped when the room heard it.
		tsMs: Number.isFinite(at) ? at : Date.now(),
		completed: segment.completed,
	};
}

export interface LoggedStreamEvent {
	seq: number;
	event: MeetingStreamBody;
}

/** Who opened a stream, and with which key: what is checked again when access may have ended. */
export interface StreamReader {
	userId: number;
	tokenId: number;
}

/** A fresh connect replays this many of the newest events (plus every note and the meeting's end). */
export const RECENT_EVENTS = 200;
/** The log keeps this many newest events, plus the newest version of every note and the meeting's end. */
export const RETAINED_EVENTS = 5000;
/** Pruning runs once per this many appends, so an append stays one insert almost always. */
const PRUNE_EVERY = 100;
/** A stream with no event for this long is closed (pings do not count); the client may reconnect. */
export const IDLE_CLOSE_MS = 600_000;
/** A reader this many events behind is not reading: it is dropped (it resumes with `Last-Event-ID`). */
const MAX_BACKLOG = 1000;

interface Reader {
	who: StreamReader;
	controller: ReadableStreamDefaultController<Uint8Array>;
	/** The last id this reader was sent: the id its pings carry. */
	lastId: number;
	lastEventAt: number;
	sentSinceTick: boolean;
	/** How far behind it may fall: what the replay queued, plus MAX_BACKLOG. */
	slack: number;
	timer: ReturnType<typeof setInterval> | null;
	closed: boolean;
}

/** The newest version of each note, by its id: older versions are superseded for every reader. */
const NEWEST_NOTES = `SELECT max(seq) FROM ${STREAM_TABLE} WHERE type = 'note' GROUP BY json_extract(data, '$.note.id')`;

export class StreamLog {
	readonly #readers = new Set<Reader>();
	#ready = false;

	constructor(
		readonly sql: SqlStorage,
		readonly keepaliveMs: number,
		readonly idleCloseMs = IDLE_CLOSE_MS,
	) {}

	/**
	 * Logs an event, then sends it to every open stream; its seq is its SSE id. A meeting ends once,
	 * and nothing follows its end: once it is logged, any event (a second end too) returns the end's seq.
	 */
	append(event: MeetingStreamBody): number {
		this.#table();
		const ended = this.#endSeq();
		if (ended !== null) return ended;
		const data = JSON.stringify(event);
		const { seq } = this.sql
			.exec<{ seq: number }>(`INSERT INTO ${STREAM_TABLE} (type, data, at) VALUES (?, ?, ?) RETURNING seq`, event.type, data, Date.now())
			.one();
		if (seq % PRUNE_EVERY === 0) this.#prune(seq);
		const bytes = sseEvent(seq, event);
		const now = Date.now();
		for (const reader of [...this.#readers]) {
			reader.lastId = seq;
			reader.lastEventAt = now;
			this.#send(reader, bytes);
		}
		return seq;
	}

	/** Logs the meeting's end (once) and closes every open stream after it: nothing follows the end. */
	end(end: MeetingEnd): number {
		const seq = this.append({ type: "meeting-end", ...end });
		for (const reader of [...this.#readers]) this.#close(reader);
		return seq;
	}

	/** The log's storage is being erased (a deleted meeting): every open stream closes, and the table is made again on its next use. */
	forget(): void {
		for (const reader of [...this.#readers]) this.#close(reader);
		this.#ready = false;
	}

	/** Whether the meeting's end is logged. */
	ended(): boolean {
		this.#table();
		return this.#endSeq() !== null;
	}

	/** The seq of the logged end, or null (one lookup on the type index). */
	#endSeq(): number | null {
		return this.sql.exec<{ seq: number }>(`SELECT seq FROM ${STREAM_TABLE} WHERE type = 'meeting-end' LIMIT 1`).toArray()[0]?.seq ?? null;
	}

	/** The newest seq logged (0 when none). */
	lastSeq(): number {
		this.#table();
		return this.sql.exec<{ seq: number | null }>(`SELECT max(seq) AS seq FROM ${STREAM_TABLE}`).one().seq ?? 0;
	}

	/** Logged transcript events after `seq`, oldest first (the copilot catches up from its cursor). */
	transcriptAfter(seq: number, limit: number): { seq: number; event: StreamTranscript }[] {
		this.#table();
		return this.sql
			.exec<{ seq: number; data: string }>(
				`SELECT seq, data FROM ${STREAM_TABLE} WHERE type = 'transcript' AND seq > ? ORDER BY seq LIMIT ?`,
				seq,
				limit,
			)
			.toArray()
			.map((row) => ({ seq: row.seq, event: JSON.parse(row.data) as StreamTranscript }));
	}

	/**
	 * An SSE response: the events after `after` (or, on a fresh connect, the recent ones with
	 * every note), then live; once the meeting has ended, the replay and the close. Replay and
	 * subscribing happen with no `await` in between, so no event can fall in the gap (the object
	 * runs one thing at a time).
	 */
	open(after: number | null, who: StreamReader): Response {
		// An id past the log (another meeting's, or made up) resumes from the log's end: nothing logged later is skipped.
		const from = after === null ? null : Math.min(after, this.lastSeq());
		const replay = this.#replay(from);
		const ended = this.ended();
		let opened: Reader | null = null;
		const stream = new ReadableStream<Uint8Array>({
			start: (controller) => {
				for (const logged of replay) controller.enqueue(sseEvent(logged.seq, logged.event));
				if (ended) {
					controller.close();
					return;
				}
				const reader: Reader = {
					who,
					controller,
					lastId: replay.at(-1)?.seq ?? from ?? this.lastSeq(),
					lastEventAt: Date.now(),
					sentSinceTick: replay.length > 0,
					slack: replay.length + MAX_BACKLOG,
					timer: null,
					closed: false,
				};
				reader.timer = setInterval(() => this.#tick(reader), this.keepaliveMs);
				this.#readers.add(reader);
				opened = reader;
			},
			cancel: () => {
				if (opened) this.#drop(opened);
			},
		});
		return new Response(stream, { headers: SSE_HEADERS });
	}

	/** Open streams (the bench and tests read it; a reader that went away leaves on its next failed send). */
	readers(): number {
		return this.#readers.size;
	}

	/** Who holds each open stream. */
	holders(): StreamReader[] {
		return [...this.#readers].map((reader) => reader.who);
	}

	/** Ends the streams whose reader `lost` gives a reason for: that reason as their last event, then the close. */
	endFor(lost: (who: StreamReader) => string | null): void {
		for (const reader of [...this.#readers]) {
			const message = lost(reader.who);
			if (message === null) continue;
			const ended: StreamAccessEnded = { type: "error", reason: "access_revoked", message };
			this.#send(reader, sseEvent(reader.lastId, ended));
			this.#close(reader);
		}
	}

	#replay(after: number | null): LoggedStreamEvent[] {
		this.#table();
		const rows =
			after === null
				? this.sql.exec<{ seq: number; data: string }>(
						`SELECT seq, data FROM ${STREAM_TABLE} WHERE seq > ? OR type = 'meeting-end' OR seq IN (${NEWEST_NOTES}) ORDER BY seq`,
						this.lastSeq() - RECENT_EVENTS,
					)
				: this.sql.exec<{ seq: number; data: string }>(`SELECT seq, data FROM ${STREAM_TABLE} WHERE seq > ? ORDER BY seq`, after);
		return rows.toArray().map((row) => ({ seq: row.seq, event: JSON.parse(row.data) as MeetingStreamBody }));
	}

	/** Keeps the newest events, the newest version of each note and the meeting's end: a long meeting cannot grow without bound. */
	#prune(seq: number): void {
		this.sql.exec(
			`DELETE FROM ${STREAM_TABLE} WHERE seq <= ? AND type <> 'meeting-end' AND NOT (type = 'note' AND seq IN (${NEWEST_NOTES}))`,
			seq - RETAINED_EVENTS,
		);
	}

	#tick(reader: Reader): void {
		if (Date.now() - reader.lastEventAt >= this.idleCloseMs) {
			this.#close(reader);
			return;
		}
		if (!reader.sentSinceTick) {
			const ping: StreamPing = { type: "ping" };
			this.#send(reader, sseEvent(reader.lastId, ping));
		}
		reader.sentSinceTick = false;
	}

	#send(reader: Reader, bytes: Uint8Array): void {
		if (reader.closed) return;
		if ((reader.controller.desiredSize ?? 0) < -reader.slack) {
			this.#close(reader);
			return;
		}
		try {
			reader.controller.enqueue(bytes);
			reader.sentSinceTick = true;
		} catch {
			// The client went away: only its stream ends.
			this.#drop(reader);
		}
	}

	#close(reader: Reader): void {
		if (reader.closed) return;
		try {
			reader.controller.close();
		} catch {
			// Already cancelled by the client.
		}
		this.#drop(reader);
	}

	#drop(reader: Reader): void {
		reader.closed = true;
		if (reader.timer !== null) clearInterval(reader.timer);
		this.#readers.delete(reader);
	}

	#table(): void {
		if (this.#ready) return;
		this.sql.exec(`CREATE TABLE IF NOT EXISTS ${STREAM_TABLE} (
			seq INTEGER PRIMARY KEY AUTOINCREMENT,
			type TEXT NOT NULL,
			data TEXT NOT NULL,
			at INTEGER NOT NULL
		)`);
		this.sql.exec(`CREATE INDEX IF NOT EXISTS ${STREAM_TABLE}_type ON ${STREAM_TABLE} (type, seq)`);
		this.#ready = true;
	}
}
