/**
 * Where a bot's transcript comes from once it is in the call: the engine the spawn names, fed the
 * meeting audio, with the platform's captions merged in as quick drafts and speakers' names
 * (transcription/captions-with-engine.ts); or else the platform's own captions; neither when
 * transcription is off. An engine that cannot start here (no relay in the spawn, no speech service
 * on this host) leaves the bot on captions, saying why (the meeting's `data.transcription_fallback`).
 */
import type { BotSegment, SpawnRequest } from "../../src/bot-channel/protocol.ts";
import type { TranscriptionEngine } from "../../src/shapes/transcription.ts";
import type { MeetingAudio } from "./audio.ts";
import type { EgressPolicy } from "./egress.ts";
import { CaptionTracker } from "./transcript.ts";
import { AssemblyAIEngine } from "./transcription/assemblyai.ts";
import { BuiltinEngine, builtinEgress, speechServiceUrl } from "./transcription/builtin.ts";
import { CaptionsWithEngine } from "./transcription/captions-with-engine.ts";
import { DeepgramEngine } from "./transcription/deepgram.ts";
import type { EngineOptions, SpeechEngine } from "./transcription/engine.ts";
import { OpenAIEngine, transcriptionEgress } from "./transcription/openai.ts";

export interface TranscriptSource {
	/** What takes the meeting audio: the engine, with the captions merged into its transcript. */
	transcriber: SpeechEngine | null;
	captions: CaptionTracker | null;
	/** The engine the spawn names that could not start here, and why: the transcript is the captions'. */
	fallback: { engine: TranscriptionEngine; reason: string } | null;
}

export interface SourceOptions {
	/** The host's egress policy; the Worker's own transcription relay is let through it. */
	policy: EgressPolicy;
	/** Segment ids start with it: one per bot in the meeting. */
	prefix: string;
	callStartedAt: number;
	now: () => number;
	captionSettleMs: number;
	audio: MeetingAudio;
	emit: (segment: BotSegment) => void;
	log: (line: string) => void;
}

/** The engine a spawn names; a spawn of an earlier release says only endpoint (`transcription`) or captions. */
export function spawnEngine(request: Pick<SpawnRequest, "engine" | "transcription">): TranscriptionEngine {
	return request.engine ?? (request.transcription ? "openai" : "captions");
}

/** One engine's start: the engine, or why it cannot start on this bot. */
type EngineStart = (request: SpawnRequest, common: EngineOptions, o: SourceOptions) => SpeechEngine | string;

/** The audio engines by name; `builtin` is the speech service in the box, at this host's SPEECH_URL. */
export const ENGINE_STARTS: Partial<Record<TranscriptionEngine, EngineStart>> = {
	openai: (request, common) =>
		request.transcription
			? new OpenAIEngine({ ...common, url: request.transcription.url, token: request.transcription.token })
			: "the spawn names no transcription endpoint",
	deepgram: (request, common) =>
		request.transcription_stream
			? new DeepgramEngine({ ...common, ...request.transcription_stream })
			: "the spawn names no streaming relay",
	assemblyai: (request, common) =>
		request.transcription_stream
			? new AssemblyAIEngine({ ...common, ...request.transcription_stream })
			: "the spawn names no streaming relay",
	builtin: (_request, common, o) => {
		const url = speechServiceUrl(process.env);
		// The operator's own service: a private address is let through, as the gateway's relay is.
		return url
			? new BuiltinEngine({ ...common, url, egress: builtinEgress(o.policy) })
			: "this bot host has no speech service (SPEECH_URL)";
	},
};

export function transcriptSource(request: SpawnRequest, o: SourceOptions): TranscriptSource {
	if (!request.transcribe_enabled) return { transcriber: null, captions: null, fallback: null };
	const captions = (emit: (segment: BotSegment) => void) =>
		new CaptionTracker({
			prefix: o.prefix,
			callStartedAt: o.callStartedAt,
			settleMs: o.captionSettleMs,
			language: request.language ?? null,
			vocabulary: request.vocabulary,
			emit,
		});
	const engine = spawnEngine(request);
	if (engine !== "captions") {
		// The captions are still read with an engine: quick drafts and speakers' names, merged with its text.
		const merged = new CaptionsWithEngine({ prefix: o.prefix, callStartedAt: o.callStartedAt, emit: o.emit });
		const start = ENGINE_STARTS[engine];
		const started = start ? start(request, { ...engineOptions(request, o), emit: merged.fromEngine }, o) : "this bot host does not run it";
		if (typeof started !== "string")
			return { transcriber: merged.around(started), captions: captions(merged.fromCaptions), fallback: null };
		o.log(`transcription: the ${engine} engine cannot start (${started}); the transcript comes from the platform's captions`);
		return { transcriber: null, captions: captions(o.emit), fallback: { engine, reason: started } };
	}
	return { transcriber: null, captions: captions(o.emit), fallback: null };
}

function engineOptions(request: SpawnRequest, o: SourceOptions): EngineOptions {
	return {
		prefix: o.prefix,
		language: request.language ?? null,
		task: request.task,
		vocabulary: request.vocabulary,
		callOffsetMs: () => o.now() - o.callStartedAt,
		speakerBetween: (from, to) => o.audio.speakerBetween(from, to),
		emit: o.emit,
		log: o.log,
		egress: transcriptionEgress(request, o.policy),
	};
}
