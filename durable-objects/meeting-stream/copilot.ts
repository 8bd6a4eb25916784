import { callerAsKeyStandsNow } from "../../src/agent/caller";
import {
	COPILOT_CONFIG_PATH,
	type CopilotConfig,
	copilotConfigOf,
	excerptSummary,
	meetingDocument,
	meetingDocumentPath,
	meetingTitle,
	type TranscriptLine,
} from "../../src/agent/copilot-document";
import { type ModelEndpoint, ModelFailure } from "../../src/agent/model-client";
import { resolveMeetingModel } from "../../src/agent/model-settings";
import { errorName } from "../../src/error-text";
import { workspaceObject } from "../../src/objects";
import { commitAuthorOf } from "../../src/workspace/author";
import { homeWorkspace } from "../../src/workspace/workspace-names";
import { SerialQueue } from "../shared/serial-queue";
import { runBeat } from "./beat";
import { CardBoard } from "./cards";
import type { StreamContext } from "./context";
import {
	type CopilotIngest,
	type CopilotStart,
	type CopilotState,
	type CopilotStatus,
	freshState,
	type LiveMeeting,
	liveMeetingOf,
	type ProcessOutcome,
	startedByOwner,
} from "./copilot-state";
import type { MeetingEnd, MeetingStreamBody, StreamTranscript } from "./log";
import { STREAM_KEYS } from "./storage";

const STATE = STREAM_KEYS.copilot;
const INGEST = STREAM_KEYS.copilotIngest;
const CATCH_UP_PAGE = 200;
/** After this many failed final beats the document is written with a transcript excerpt. */
const FINAL_MODEL_ATTEMPTS = 3;

/** The model a beat calls, or why none is called (words for the meeting document). */
type BeatModel = { ok: true; endpoint: ModelEndpoint } | { ok: false; why: string };

/**
 * The live meeting copilot, inside the meeting's MeetingStream. While processing is on it follows the
 * transcript from its cursor: a baseline note per segment at once, and a model beat on a new
 * speaker or every few segments producing cards; at the end a final beat and the meeting written
 * and committed to the owner's workspace (the stream's `copilot_final` timer retries until it is).
 *
 * Nothing here runs on the room's path: `transcriptLogged` only queues work, and `meetingEnded`
 * only records the end and sets the timer. Every change
 * of the copilot's state goes through one chain, so a beat finishing never overwrites a cursor
 * that moved meanwhile; beats run beside the chain, one at a time.
 */
export class MeetingCopilot {
	#beat: Promise<void> | null = null;
	#beatAgain = false;
	readonly #chain: SerialQueue;

	constructor(readonly stream: StreamContext) {
		this.#chain = new SerialQueue({
			onError: (err) => console.error("copilot work failed", errorName(err)),
			onQueued: (tail) => stream.waitUntil(tail),
		});
	}

	/** Starts the copilot, or touches it (a new key, title, settings); null, changing nothing, when it is someone else's. */
	async start(start: CopilotStart): Promise<LiveMeeting | null> {
		const ownerId = start.caller.userId;
		const config = await this.#readConfig(ownerId);
		let refused = false;
		const state = await this.#mutate((old) => {
			// Never another user's key on a copilot: it would spend its owner's model in their name.
			refused = old !== undefined && old.ownerId !== ownerId;
			if (refused) return undefined;
			return {
				...(old ?? freshState(start)),
				caller: start.caller,
				title: start.title ?? old?.title ?? null,
				config,
				processing: true,
			};
		});
		if (refused) return null;
		this.#chain.run(() => this.#catchUp());
		return liveMeetingOf(state);
	}

	async process(on: boolean): Promise<ProcessOutcome | null> {
		if (!(await this.#state())) return null;
		const state = await this.#mutate((old) => (old ? { ...old, processing: on } : old));
		if (!state) return null;
		if (!on) return { processing: false };
		this.#chain.run(() => this.#catchUp());
		return { processing: true, resumed_from: String(state.cursor) };
	}

	/** Whether a copilot was started here, and whether it follows the meeting now. */
	async status(): Promise<CopilotStatus> {
		const state = await this.#state();
		if (!state) return "none";
		if (state.ended) return "ended";
		return state.processing ? "running" : "paused";
	}

	async ingest(): Promise<CopilotIngest> {
		return (await this.stream.storage.get<CopilotIngest>(INGEST)) ?? { segments: 0, last_segment_at: null };
	}

	/** A transcript event was logged at `seq`: follow it when processing is on (never blocks the caller). */
	transcriptLogged(_seq: number, line: StreamTranscript): void {
		this.#chain.run(async () => {
			// Most meetings have no copilot: their segments cost one cached read here, no write.
			if (!(await this.#state())) return;
			if (line.completed) {
				const ingest = await this.ingest();
				await this.stream.storage.put(INGEST, { segments: ingest.segments + 1, last_segment_at: new Date().toISOString() });
			}
			await this.#catchUp();
		});
	}

	/**
	 * The meeting reached a terminal status (told again, it changes nothing): the final beat and
	 * the meeting document follow, on a timer that retries. True when this copilot logs the
	 * stream's `meeting-end` itself, after its final beat; false when the caller logs it now.
	 */
	async meetingEnded(end: MeetingEnd, startedAt: string | null): Promise<boolean> {
		const state = await this.#mutate((old) =>
			old ? { ...old, ended: true, end: old.end ?? end, startedAt: old.startedAt ?? startedAt } : old,
		);
		if (!state || state.documented) return false;
		if (!state.endLogged) await this.stream.timers.set("copilot_final", Date.now());
		return !state.endLogged;
	}

	/** The `copilot_final` timer: throws while the document could not be written, so the timer retries. */
	async finish(): Promise<void> {
		await this.#chain.idle();
		await this.#beat;
		const state = await this.#state();
		if (!state) return;
		if (state.documented || !state.config.enabled) {
			await this.#logEnd();
			return;
		}
		const lines = await this.#linesAfter(0, Number.MAX_SAFE_INTEGER);
		let summary = state.summary;
		if (summary === null) {
			summary = await this.#finalSummary(state, lines);
			await this.#mutate((old) => (old ? { ...old, summary } : old));
		}
		// The final beat has drained: the end goes out after it, whatever becomes of the document.
		await this.#logEnd();
		// A meeting nobody spoke in (a bot that never got in) leaves no document behind.
		if (state.config.write_meeting_doc && lines.length > 0 && startedByOwner(state)) await this.#writeDocument(state, summary);
		await this.#mutate((old) => (old ? { ...old, documented: true } : old));
	}

	/** Logs the meeting's end on the stream, which closes it: nothing of this copilot's comes after. */
	async #logEnd(): Promise<void> {
		const state = await this.#state();
		if (!state?.end || state.endLogged) return;
		this.stream.log.end(state.end);
		await this.#mutate((old) => (old ? { ...old, endLogged: true } : old));
	}

	/**
	 * The meeting's summary: the final beat's reply, or a transcript excerpt headed by why there is
	 * no model summary (no model configured, the starting key gone, the model failing or silent),
	 * never a reason that is not the real one. Throws a failed model call until the last attempt.
	 */
	async #finalSummary(state: CopilotState, lines: TranscriptLine[]): Promise<string> {
		if (lines.length === 0) return "";
		const model = await this.#model(state);
		if (!model.ok) return excerptSummary(lines, model.why);
		const base = { ...this.#beatBase(state, model.endpoint), lines, final: true };
		try {
			const board = new CardBoard(state.cards);
			const outcome = await runBeat({ ...base, board, cards: true });
			await this.#mutate((old) => (old ? { ...old, cards: board.stored() } : old));
			// A model offered add_card may answer with tool calls alone: the summary is then asked for on its own.
			const text = outcome.text.trim() || (await runBeat({ ...base, board, cards: false })).text.trim();
			return text || excerptSummary(lines, "the model answered with no text");
		} catch (err) {
			const attempts = state.finalAttempts + 1;
			await this.#mutate((old) => (old ? { ...old, finalAttempts: attempts } : old));
			if (attempts < FINAL_MODEL_ATTEMPTS) throw err;
			const failure = err instanceof ModelFailure ? err.detail : "the call did not complete";
			return excerptSummary(lines, `the model call failed ${attempts} times (${failure})`);
		}
	}

	async #writeDocument(state: CopilotState, summary: string): Promise<void> {
		const env = this.stream.env;
		const author = await commitAuthorOf(env, state.ownerId);
		const started = state.startedAt;
		const content = meetingDocument({
			nativeId: state.nativeId,
			platform: state.platform,
			title: state.title,
			date: (started ?? new Date().toISOString()).slice(0, 10),
			summary,
		});
		const outcome = await workspaceObject(env, homeWorkspace(state.ownerId)).commit({
			changes: [{ path: meetingDocumentPath(state.nativeId), content }],
			message: `Meeting: ${meetingTitle(state)}`,
			author,
			by: "platform",
		});
		// A refusal will not change on a retry: say so and stop, rather than retry forever.
		if (!outcome.ok) console.error("meeting document refused", outcome.violations.length);
	}

	/** Notes for every transcript event after the cursor; a beat when one is due. */
	async #catchUp(): Promise<void> {
		let state = await this.#state();
		if (!state?.processing || state.ended || !state.config.enabled) return;
		let beatDue = false;
		for (;;) {
			const page = this.stream.log.transcriptAfter(state.cursor, CATCH_UP_PAGE);
			for (const { seq, event } of page) {
				this.stream.log.append({
					type: "note",
					note: { id: event.id, text: event.text, speaker: event.speaker, t: event.t, pass: 0, frozen: false },
				});
				const newSpeaker = event.completed && state.lastSpeaker !== null && event.speaker !== state.lastSpeaker;
				const pending: number = state.pending + (event.completed ? 1 : 0);
				beatDue ||= newSpeaker || pending >= state.config.cadence_segments;
				state = { ...state, cursor: seq, pending, lastSpeaker: event.completed ? event.speaker : state.lastSpeaker };
			}
			if (page.length < CATCH_UP_PAGE) break;
		}
		await this.stream.storage.put(STATE, state);
		if (beatDue) this.#startBeat();
	}

	/** One beat at a time; segments that arrive during a beat are taken by the next one. */
	#startBeat(): void {
		if (this.#beat) {
			this.#beatAgain = true;
			return;
		}
		this.#beat = (async () => {
			do {
				this.#beatAgain = false;
				await this.#beatOnce().catch((err: unknown) => {
					console.error("copilot beat failed", err instanceof ModelFailure ? err.kind : errorName(err));
				});
			} while (this.#beatAgain);
		})().finally(() => {
			this.#beat = null;
		});
		this.stream.waitUntil(this.#beat);
	}

	async #beatOnce(): Promise<void> {
		const state = await this.#state();
		if (!state?.processing || state.ended || state.cursor <= state.beatCursor) return;
		const upTo = state.cursor;
		const taken = state.pending;
		// Whatever happens below, the cadence counts again from here.
		const settle = (beatCursor: number, board?: CardBoard) =>
			this.#mutate((old) =>
				old
					? {
							...old,
							beatCursor: Math.max(old.beatCursor, beatCursor),
							pending: Math.max(0, old.pending - taken),
							...(board && { cards: board.stored() }),
						}
					: old,
			);
		const model = await this.#model(state);
		if (!model.ok) {
			await settle(state.beatCursor);
			return;
		}
		const lines = await this.#linesAfter(state.beatCursor, upTo);
		// Beats run one at a time and only they place cards: the board read here is the newest.
		const board = new CardBoard(state.cards);
		let processed = false;
		try {
			await runBeat({ ...this.#beatBase(state, model.endpoint), board, lines, final: false, cards: true });
			processed = true;
		} finally {
			// A failed beat keeps its lines for the next one: the cursor moves only past what was processed.
			await settle(processed ? upTo : state.beatCursor, processed ? board : undefined);
		}
	}

	#beatBase(state: CopilotState, endpoint: ModelEndpoint) {
		return {
			env: this.stream.env,
			endpoint,
			title: meetingTitle(state),
			cardKinds: state.config.card_kinds,
			append: (event: MeetingStreamBody) => this.stream.log.append(event),
		};
	}

	/** The owner's meeting model, while the owner's key that started the copilot still stands; else why not (notes only). */
	async #model(state: CopilotState): Promise<BeatModel> {
		const env = this.stream.env;
		if (!startedByOwner(state)) return { ok: false, why: "the copilot was not started by the meeting's owner, whose model it would use" };
		if (!(await callerAsKeyStandsNow(env, state.caller)))
			return { ok: false, why: "the API key that started the copilot was revoked or has expired" };
		const model = await resolveMeetingModel(env, state.ownerId, state.config.model);
		return model.ok ? model : { ok: false, why: model.message };
	}

	/** Completed transcript lines in (after, upTo], each segment once (its last version). */
	async #linesAfter(after: number, upTo: number): Promise<TranscriptLine[]> {
		const bySegment = new Map<string, TranscriptLine>();
		let cursor = after;
		for (;;) {
			const page = this.stream.log.transcriptAfter(cursor, CATCH_UP_PAGE).filter(({ seq }) => seq <= upTo);
			for (const { event } of page) {
				bySegment.delete(event.id);
				if (event.completed) bySegment.set(event.id, { speaker: event.speaker, text: event.text });
			}
			const last = page.at(-1);
			if (!last || page.length < CATCH_UP_PAGE) break;
			cursor = last.seq;
		}
		return [...bySegment.values()];
	}

	async #readConfig(ownerId: number): Promise<CopilotConfig> {
		try {
			const file = await workspaceObject(this.stream.env, homeWorkspace(ownerId)).read(COPILOT_CONFIG_PATH);
			return copilotConfigOf(file?.content ?? null);
		} catch {
			// No workspace yet (or it cannot be read now): the defaults.
			return copilotConfigOf(null);
		}
	}

	#state(): Promise<CopilotState | undefined> {
		return this.stream.storage.get<CopilotState>(STATE);
	}

	/** Changes the state on the chain, so no two changes interleave. */
	#mutate(change: (old: CopilotState | undefined) => CopilotState | undefined): Promise<CopilotState | undefined> {
		return this.#chain.run(async () => {
			const next = change(await this.#state());
			if (next) await this.stream.storage.put(STATE, next);
			return next;
		});
	}
}
