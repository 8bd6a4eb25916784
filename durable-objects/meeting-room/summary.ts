import { ModelFailure, streamModelStep } from "../../src/agent/model-client";
import type { MeetingRow } from "../../src/db/schema";
import { errorName } from "../../src/error-text";
import { findOwnedMeeting } from "../../src/meetings/meeting-store";
import {
	boundedTranscript,
	emptySummary,
	failedSummary,
	type MeetingSummary,
	readSummaryReply,
	summaryMessages,
	summaryOf,
} from "../../src/meetings/meeting-summary";
import { claimSummary, finishSummary, summaryLines, summaryModel } from "../../src/meetings/meeting-summary-store";
import type { StatusStep } from "../../src/meetings/status-writes";
import { outboundPolicy } from "../../src/outbound/url-guard";
import { withScreenshotLinks } from "../../src/screenshots/screenshots";
import { setting } from "../../src/settings/deployment-defaults";
import type { RoomContext } from "./context";
import { ROOM_KEYS } from "./storage";

/** The summary being made: a model is called for it at most once (`calledAt` is stored before the call). */
interface SummaryJob {
	meetingId: number;
	userId: number;
	model: string;
	calledAt: number | null;
	outcome: MeetingSummary | null;
}

/** The step's `meeting.completed` event, held back until the summary is in it (or the wait is over). */
export interface HeldCompletion {
	userId: number;
	meetingId: number;
	step: StatusStep;
	/** The record at the step, for a meeting deleted before the event goes. */
	row: MeetingRow;
}

/** After the model call's own timeout, how much longer `meeting.completed` waits for a summary whose storing keeps failing. */
const RELEASE_GRACE_S = 30;
/** The most bytes read from the model's reply (the summary's bounds are far smaller). */
const MAX_REPLY_BYTES = 512 * 1024;

/**
 * The summary of a completed meeting (docs/api.md#summaries), made in its room: the completion
 * claims `data.summary` in D1 (`no_model`, or `pending` with the `summary` timer due at once),
 * the timer's alarm calls the owner's model with the transcript and stores what it made, and the
 * step's `meeting.completed` event, held until then, goes out carrying it. The model call is
 * outside the room's serial queue: a slow model holds up no status move.
 */
export class RoomSummary {
	/** A run in this instance: a second alarm pass meanwhile leaves it to finish (and goes on to the other timers). */
	#running = false;

	constructor(private readonly room: RoomContext) {}

	/**
	 * At the step to `completed`: the record with its summary claimed, and whether the step's
	 * `meeting.completed` waits for it. A record that already has one is left as it is.
	 */
	async begin(row: MeetingRow): Promise<{ row: MeetingRow; hold: boolean }> {
		if (row.status !== "completed" || summaryOf(row.data)) return { row, hold: false };
		const endpoint = await summaryModel(this.room.env, row.userId);
		if (!endpoint) return { row: (await claimSummary(this.room.env, row.id, emptySummary("no_model", null))) ?? row, hold: false };
		const claimed = await claimSummary(this.room.env, row.id, emptySummary("pending", endpoint.model));
		if (!claimed) return { row, hold: false };
		const job: SummaryJob = { meetingId: row.id, userId: row.userId, model: endpoint.model, calledAt: null, outcome: null };
		await this.room.storage.put(ROOM_KEYS.summaryJob, job);
		const now = Date.now();
		await this.room.timers.set("summary", now);
		await this.room.timers.set("summary_release", now + (setting(this.room.env, "SUMMARY_TIMEOUT_S") + RELEASE_GRACE_S) * 1000);
		return { row: claimed, hold: true };
	}

	/** The `summary` timer: the model's outcome (made once, kept in the job), stored, then the held event goes. */
	async run(): Promise<void> {
		if (this.#running) return;
		this.#running = true;
		try {
			await this.#run();
		} finally {
			this.#running = false;
		}
	}

	async #run(): Promise<void> {
		const job = await this.room.storage.get<SummaryJob>(ROOM_KEYS.summaryJob);
		if (!job) return;
		let outcome = job.outcome;
		if (!outcome) {
			// A job that was called and has no outcome was cut off mid-call (the object restarted): never called twice.
			if (job.calledAt !== null) {
				outcome = failedSummary(job.model, "The summary was interrupted before the model answered", new Date());
			} else {
				await this.room.storage.put(ROOM_KEYS.summaryJob, { ...job, calledAt: Date.now() });
				outcome = await this.#produce(job);
			}
			await this.room.storage.put(ROOM_KEYS.summaryJob, { ...job, calledAt: job.calledAt ?? Date.now(), outcome });
		}
		// A failed write throws: the timer retries with the outcome kept, and no second call.
		await finishSummary(this.room.env, job.meetingId, outcome);
		await this.room.storage.delete(ROOM_KEYS.summaryJob);
		await this.room.timers.clear("summary");
		await this.room.serial(() => this.release());
	}

	/** Sends the held `meeting.completed` with the record as it is now (the summary `pending` if the wait ran out). */
	async release(): Promise<void> {
		const held = await this.room.storage.get<HeldCompletion>(ROOM_KEYS.heldCompletion);
		if (held) {
			const fresh = (await findOwnedMeeting(this.room.env, held.userId, held.meetingId)) ?? held.row;
			const shown: MeetingRow = { ...fresh, data: await withScreenshotLinks(this.room.env, fresh.id, fresh.data) };
			const entries = await this.room.webhooks.prepare(shown, ["meeting.completed"], held.step);
			// No await between the two: one coalesced write, so the event is either still held or on its way, never both.
			const put = this.room.storage.put(entries);
			const unheld = this.room.storage.delete(ROOM_KEYS.heldCompletion);
			await Promise.all([put, unheld]);
			await this.room.sendNotices();
		}
		await this.room.timers.clear("summary_release");
	}

	/** One model call over the bounded transcript; every way it can go wrong is a `failed` summary with a short error. */
	async #produce(job: SummaryJob): Promise<MeetingSummary> {
		const env = this.room.env;
		try {
			const endpoint = await summaryModel(env, job.userId);
			// The model was removed since the meeting completed: nothing is made up.
			if (!endpoint) return emptySummary("no_model", null);
			const [row, lines] = await Promise.all([findOwnedMeeting(env, job.userId, job.meetingId), summaryLines(env, job.meetingId)]);
			if (!row) return failedSummary(endpoint.model, "The meeting was deleted before it was summarized", new Date());
			// Nobody said anything: there is nothing to summarize, and the model is not asked to.
			if (lines.length === 0) return { ...emptySummary("pending", null), status: "ready", generated_at: new Date().toISOString() };
			const transcript = boundedTranscript(lines, setting(env, "SUMMARY_MAX_TRANSCRIPT_CHARS"));
			const title = typeof row.data.title === "string" ? row.data.title : null;
			const label = `${row.platform} ${row.nativeMeetingId ?? row.id}`;
			const step = await streamModelStep({
				endpoint,
				messages: summaryMessages({ label, title }, transcript),
				tools: [],
				policy: outboundPolicy(env),
				limits: { timeoutMs: setting(env, "SUMMARY_TIMEOUT_S") * 1000, maxBytes: MAX_REPLY_BYTES },
				onText: () => {},
			});
			const reply = readSummaryReply(step.text, lines, endpoint.model, new Date());
			return reply.ok ? reply.summary : failedSummary(endpoint.model, reply.error, new Date());
		} catch (err) {
			if (err instanceof ModelFailure) return failedSummary(job.model, err.detail, new Date());
			console.error("meeting summary failed", job.meetingId, errorName(err));
			return failedSummary(job.model, "The summary could not be made", new Date());
		}
	}
}
