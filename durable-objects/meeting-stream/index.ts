import { DurableObject } from "cloudflare:workers";
import type { BotSegment } from "../../src/bot-channel/protocol";
import type { MeetingRow } from "../../src/db/schema";
import type { Env } from "../../src/env";
import type { SummaryClaim, SummaryRetry } from "../../src/meetings/summary-claim";
import { meetingRoom } from "../../src/objects";
import type { TimerHandlers } from "../shared/alarm-timers";
import type { ErasedStorage } from "../shared/erase";
import { SerialQueue } from "../shared/serial-queue";
import { StreamAccess } from "./access";
import { contextOf, type StreamContext } from "./context";
import { MeetingCopilot } from "./copilot";
import type { CopilotIngest, CopilotStart, CopilotStatus, LiveMeeting, ProcessOutcome } from "./copilot-state";
import { eraseStream } from "./erase";
import { type MeetingEnd, type StreamReader, type StreamTranscript, transcriptLine } from "./log";
import type { StreamTimerName } from "./storage";
import { StreamSummary } from "./summary";

/**
 * The RPC surface: what the meeting's room, the Worker's routes and LiveFeeds call on a
 * MeetingStream stub. (alarm is the runtime's entry point.)
 */
export const MEETING_STREAM_RPC = [
	"transcriptStored",
	"meetingEnded",
	"open",
	"revalidateReaders",
	"copilotStart",
	"copilotProcess",
	"copilotIngest",
	"copilotStatus",
	"summaryBegin",
	"summarize",
	"erase",
] as const;

/**
 * One per meeting (named by the meeting id, as its MeetingRoom is): the meeting's record of what
 * was said and made of it. It keeps the SSE log (docs/meeting-stream.md) with its open streams,
 * the live copilot with its `copilot_final` timer, and the completed meeting's summary
 * (`data.summary`) with its `summary` timer. The room feeds it, in order: each transcript line as
 * it is stored, the meeting's end last, then a completion's summary claim. Nothing the room
 * awaits here waits on a model or the workspace, so none of them can delay a status move.
 */
export class MeetingStream extends DurableObject<Env> {
	readonly #context: StreamContext = contextOf(this.ctx, () => this.env);
	readonly #copilot = new MeetingCopilot(this.#context);
	readonly #summary = new StreamSummary(this.#context, (meetingId) => meetingRoom(this.env, meetingId).summaryStored(meetingId));
	readonly #access = new StreamAccess(this.#context, this.#context.log.keepaliveMs);
	/** Copilot starts and process switches, one at a time (they read, then change, its state). */
	readonly #copilotCalls = new SerialQueue();
	/** Summary claims and retries, one at a time (each stores the one job). */
	readonly #summaryCalls = new SerialQueue();

	/**
	 * The room stored a bot's segment: its transcript event is logged (its seq, the SSE id, is
	 * returned) and the copilot follows it, never awaited here. A line already built (sent by a
	 * room of the version before, during a deploy) is logged as it is.
	 */
	transcriptStored(stored: BotSegment | StreamTranscript): number {
		const line = "segment_id" in stored ? transcriptLine(stored) : stored;
		const seq = this.#context.log.append(line);
		this.#copilot.transcriptLogged(seq, line);
		return seq;
	}

	/**
	 * The meeting reached a terminal status (told again, it changes nothing). Without a copilot
	 * the end is logged now and every open stream closes; with one, its final beat goes out
	 * first and the copilot logs the end itself, on the `copilot_final` timer.
	 */
	async meetingEnded(end: MeetingEnd, startedAt: string | null): Promise<void> {
		if (!(await this.#copilot.meetingEnded(end, startedAt))) this.#context.log.end(end);
	}

	/**
	 * The meeting's SSE stream, from after `lastEventId` (or its recent events), then live, until
	 * the meeting's end. The Worker checked the reader; it keeps reading while its access lasts.
	 * `ended`: the record is terminal; a meeting that ended before its room told this object (or
	 * without a room) gets its `meeting-end` now, or after the copilot's final beat.
	 */
	async open(
		meetingId: number,
		reader: StreamReader,
		lastEventId: number | null,
		ended: MeetingEnd | null = null,
		startedAt: string | null = null,
	): Promise<Response> {
		if (ended) await this.meetingEnded(ended, startedAt);
		return this.#access.open(meetingId, lastEventId, reader);
	}

	/** Access may have ended (a user's, or with `userId` omitted everyone's): ends the streams that lost it; how many of theirs stay open. */
	revalidateReaders(meetingId: number, userId?: number): Promise<number> {
		return this.#access.revalidate(meetingId, userId);
	}

	/** Starts (or touches) the live copilot of this meeting; null when it is another user's. */
	copilotStart(start: CopilotStart): Promise<LiveMeeting | null> {
		return this.#copilotCalls.run(() => this.#copilot.start(start));
	}

	/** Processing on (resumes from the cursor) or off (freezes it); null when no copilot was started here. */
	copilotProcess(on: boolean): Promise<ProcessOutcome | null> {
		return this.#copilotCalls.run(() => this.#copilot.process(on));
	}

	/** Where this meeting's copilot is: none, running, paused or ended (GET /agent/meeting/copilot). */
	copilotStatus(): Promise<CopilotStatus> {
		return this.#copilot.status();
	}

	/** How the transcript reaches the copilot, for relay-health. */
	copilotIngest(): Promise<CopilotIngest> {
		return this.#copilot.ingest();
	}

	/** A completion (from the room): the record with its summary claimed, and whether its `meeting.completed` waits for it. */
	summaryBegin(row: MeetingRow): Promise<SummaryClaim> {
		return this.#summaryCalls.run(() => this.#summary.begin(row));
	}

	/** The owner asks again for a completed meeting's summary that could not be made (docs/api.md#summaries). */
	summarize(meetingId: number, userId: number): Promise<SummaryRetry> {
		return this.#summaryCalls.run(() => this.#summary.retry(meetingId, userId));
	}

	/** The meeting was deleted, or its log outlived its retention: every stream closes and all kept here goes (erase.ts). */
	erase(): Promise<ErasedStorage> {
		return this.#copilotCalls.run(() => this.#summaryCalls.run(() => eraseStream(this.#context)));
	}

	/** Runs each due timer's action (shared/alarm-timers.ts: a timer goes once its action succeeded, else it retries). */
	override alarm(): Promise<void> {
		return this.#context.timers.fire(this.#timerActions);
	}

	readonly #timerActions: TimerHandlers<StreamTimerName> = {
		// The final beat waits on the model: only this object's alarm waits with it.
		copilot_final: () => this.#copilot.finish(),
		summary: () => this.#summary.run(),
	};
}
