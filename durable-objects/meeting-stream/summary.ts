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
import { claimSummary, finishSummary, reopenSummary, summaryLines, summaryModel } from "../../src/meetings/meeting-summary-store";
import type { SummaryClaim, SummaryRetry } from "../../src/meetings/summary-claim";
import { outboundPolicy } from "../../src/outbound/url-guard";
import { setting } from "../../src/settings/deployment-defaults";
import type { StreamContext } from "./context";
import { STREAM_STORAGE } from "./storage";

/** The summary being made: a model is called for it at most once (`calledAt` is stored before the call). */
interface SummaryJob {
	meetingId: number;
	userId: number;
	model: string;
	calledAt: number | null;
	outcome: MeetingSummary | null;
	/** Whether the room holds the meeting's `meeting.completed` for it (a completion's, not an owner's retry). */
	held?: boolean;
}

/** What the summary uses of the stream. */
export type SummaryHost = Pick<StreamContext, "env" | "storage" | "timers">;

/** The most bytes read from the model's reply (the summary's bounds are far smaller). */
const MAX_REPLY_BYTES = 512 * 1024;

/**
 * The summary of a completed meeting (docs/api.md#summaries), made in its stream, beside the
 * copilot's final beat: the room's completion claims `data.summary` here (`no_model`, or
 * `pending` with the `summary` timer due at once), the timer's alarm calls the owner's model
 * with the transcript and stores what it made, and then tells the room (`summaryStored`),
 * which sends the step's `meeting.completed`, held until then, carrying it. The model call is
 * on the stream's alarm: no status move of the room waits for it.
 */
export class StreamSummary {
	/** A run in this instance: a second alarm pass meanwhile leaves it to finish (and goes on to the other timers). */
	#running = false;

	constructor(
		private readonly stream: SummaryHost,
		/** Tells the meeting's room that its summary is stored: the held `meeting.completed` goes. */
		private readonly stored: (meetingId: number) => Promise<void>,
	) {}

	/**
	 * At the step to `completed`: the record with its summary claimed, and whether the step's
	 * `meeting.completed` waits for it. A record that already has one is left as it is.
	 */
	async begin(row: MeetingRow): Promise<SummaryClaim> {
		const env = this.stream.env;
		if (row.status !== "completed" || summaryOf(row.data)) return { row, hold: false };
		const endpoint = await summaryModel(env, row.userId);
		if (!endpoint) return { row: (await claimSummary(env, row.id, emptySummary("no_model", null))) ?? row, hold: false };
		const claimed = await claimSummary(env, row.id, emptySummary("pending", endpoint.model));
		if (!claimed) return { row, hold: false };
		await this.#start({ meetingId: row.id, userId: row.userId, model: endpoint.model, calledAt: null, outcome: null, held: true });
		return { row: claimed, hold: true };
	}

	/**
	 * The owner asked again for a summary that could not be made (or was never begun): it is made
	 * as at completion, with nothing held (its `meeting.completed` went long ago). `no_model` when
	 * there is still no model, `taken` when the summary is pending or ready (or the meeting is not
	 * completed), else the summary, pending.
	 */
	async retry(meetingId: number, userId: number): Promise<SummaryRetry> {
		const endpoint = await summaryModel(this.stream.env, userId);
		if (!endpoint) return { refused: "no_model", summary: null };
		const pending = emptySummary("pending", endpoint.model);
		if (!(await reopenSummary(this.stream.env, meetingId, pending))) return { refused: "taken", summary: null };
		await this.#start({ meetingId, userId, model: endpoint.model, calledAt: null, outcome: null, held: false });
		return { refused: null, summary: pending };
	}

	async #start(job: SummaryJob): Promise<void> {
		await this.stream.storage.put(STREAM_STORAGE.keys.summaryJob, job);
		await this.stream.timers.set("summary", Date.now());
	}

	/** The `summary` timer: the model's outcome (made once, kept in the job), stored, then the room is told. */
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
		const storage = this.stream.storage;
		const job = await storage.get<SummaryJob>(STREAM_STORAGE.keys.summaryJob);
		if (!job) return;
		let outcome = job.outcome;
		if (!outcome) {
			// A job that was called and has no outcome was cut off mid-call (the object restarted): never called twice.
			if (job.calledAt !== null) {
				outcome = failedSummary(job.model, "The summary was interrupted before the model answered", new Date());
			} else {
				await storage.put(STREAM_STORAGE.keys.summaryJob, { ...job, calledAt: Date.now() });
				outcome = await this.#produce(job);
			}
			await storage.put(STREAM_STORAGE.keys.summaryJob, { ...job, calledAt: job.calledAt ?? Date.now(), outcome });
		}
		// A failed write throws: the timer retries with the outcome kept, and no second call.
		await finishSummary(this.stream.env, job.meetingId, outcome);
		await storage.delete(STREAM_STORAGE.keys.summaryJob);
		await this.stream.timers.clear("summary");
		if (job.held === false) return;
		try {
			await this.stored(job.meetingId);
		} catch (err) {
			// The room's `summary_release` timer sends the held event anyway, with the record as it is then.
			console.error("the room did not hear that the summary is stored", job.meetingId, errorName(err));
		}
	}

	/** One model call over the bounded transcript; every way it can go wrong is a `failed` summary with a short error. */
	async #produce(job: SummaryJob): Promise<MeetingSummary> {
		const env = this.stream.env;
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
