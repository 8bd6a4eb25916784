/**
 * Where a bot's transcript comes from once it is in the call: the meeting audio, through the
 * transcription endpoint the spawn names, with the platform's captions merged in as drafts and
 * names (transcription/captions-with-engine.ts); or else the platform's own captions; neither
 * when transcription is off.
 */
import type { BotSegment, SpawnRequest } from "../../src/bot-channel/protocol.ts";
import type { MeetingAudio } from "./audio.ts";
import type { EgressPolicy } from "./egress.ts";
import { Transcriber, transcriptionEgress } from "./transcriber.ts";
import { CaptionTracker } from "./transcript.ts";
import { type AudioEngine, CaptionsWithEngine } from "./transcription/captions-with-engine.ts";

export interface TranscriptSource {
	/** What takes the meeting audio: the engine, with the captions merged into its transcript when both run. */
	transcriber: AudioEngine | null;
	captions: CaptionTracker | null;
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

export function transcriptSource(request: SpawnRequest, o: SourceOptions): TranscriptSource {
	if (!request.transcribe_enabled) return { transcriber: null, captions: null };
	const captions = (emit: (segment: BotSegment) => void) =>
		new CaptionTracker({
			prefix: o.prefix,
			callStartedAt: o.callStartedAt,
			settleMs: o.captionSettleMs,
			language: request.language ?? null,
			vocabulary: request.vocabulary,
			emit,
		});
	if (!request.transcription) return { transcriber: null, captions: captions(o.emit) };
	// The captions are still read with an engine: quick drafts and speakers' names, merged with its text.
	const merged = new CaptionsWithEngine({ prefix: o.prefix, callStartedAt: o.callStartedAt, emit: o.emit });
	const transcriber = new Transcriber({
		url: request.transcription.url,
		token: request.transcription.token,
		egress: transcriptionEgress(request, o.policy),
		language: request.language ?? null,
		task: request.task,
		vocabulary: request.vocabulary,
		prefix: o.prefix,
		callOffsetMs: () => o.now() - o.callStartedAt,
		speakerBetween: (from, to) => o.audio.speakerBetween(from, to),
		emit: merged.fromEngine,
		log: o.log,
	});
	return { transcriber: merged.around(transcriber), captions: captions(merged.fromCaptions) };
}
