/**
 * The transcription engines, named once: the Worker chooses one per bot (docs/api.md#transcription-engines),
 * the spawn request carries it, and the bot host runs its adapter (bot-host/bot/transcription/).
 * A segment's `source` says which one heard it. Imports only zod: the bot host and the dashboard read it.
 */
import { z } from "zod";

/**
 * - `captions`: the platform's own captions.
 * - `builtin`: the speech service in the box (whisper.cpp), reached by the bot host at its SPEECH_URL.
 * - `openai`: an OpenAI-compatible `/v1/audio/transcriptions` endpoint, through the Worker's relay.
 * - `deepgram`, `assemblyai`: the providers' streaming APIs, through the Worker's WebSocket relay,
 *   which adds the key.
 */
export const TranscriptionEngine = z.enum(["captions", "builtin", "openai", "deepgram", "assemblyai"]);
export type TranscriptionEngine = z.infer<typeof TranscriptionEngine>;

/** The engine a bot was launched with could not start on it: its transcript comes from the platform's captions. */
export const TranscriptionFallback = z.object({
	engine: TranscriptionEngine,
	reason: z.string().describe("Why the engine could not start on the bot, such as a bot host with no speech service"),
	at: z.string(),
});
export type TranscriptionFallback = z.infer<typeof TranscriptionFallback>;

/** The engines the Worker relays over a WebSocket with the provider's key (`transcription_stream`). */
export const STREAMING_PROVIDERS = ["deepgram", "assemblyai"] as const satisfies readonly TranscriptionEngine[];
export type StreamingProvider = (typeof STREAMING_PROVIDERS)[number];

export const isStreamingProvider = (engine: string): engine is StreamingProvider =>
	(STREAMING_PROVIDERS as readonly string[]).includes(engine);
