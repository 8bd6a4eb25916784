/**
 * The speech service: one whisper.cpp model (SPEECH_MODEL, a ggml file) behind the
 * OpenAI-compatible transcription endpoint and the live stream (docs/speech.md).
 *
 *   SPEECH_MODEL      path of the ggml model (required)
 *   SPEECH_PORT       default 18055 (0: any free port)
 *   SPEECH_HOST       address to listen on; default 127.0.0.1 (0.0.0.0 in the image)
 *   SPEECH_THREADS    cores one pass uses; default all of them
 *   SPEECH_VAD_MODEL  optional ggml silero VAD file, a second gate after the energy one
 *   SPEECH_DRAFT_MS   speech between two drafts of a live utterance; default 1000, 0: finals only
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { SpeechModel } from "./engine.ts";
import { speechServer } from "./http.ts";

const log = (line: string) => process.stderr.write(`${line}\n`);

function setting(name: string): string | null {
	const value = process.env[name]?.trim();
	return value ? value : null;
}

function whole(name: string, fallback: number, least: number): number {
	const text = setting(name);
	const value = text === null ? fallback : Number(text);
	if (!Number.isInteger(value) || value < least) {
		log(`${name} must be a whole number from ${least}, not ${text}`);
		process.exit(2);
	}
	return value;
}

const modelPath = setting("SPEECH_MODEL");
if (!modelPath || !existsSync(modelPath)) {
	log(
		modelPath
			? `SPEECH_MODEL names no file: ${modelPath}`
			: "SPEECH_MODEL is not set: the path of a ggml whisper model (npm run models -- base.en)",
	);
	process.exit(2);
}
const vadModelPath = setting("SPEECH_VAD_MODEL");
if (vadModelPath && !existsSync(vadModelPath)) {
	log(`SPEECH_VAD_MODEL names no file: ${vadModelPath}`);
	process.exit(2);
}
// 0 takes any free port (the log line names it).
const port = whole("SPEECH_PORT", 18055, 0);
const threads = whole("SPEECH_THREADS", availableParallelism(), 1);
const host = setting("SPEECH_HOST") ?? "127.0.0.1";
const draftEveryMs = whole("SPEECH_DRAFT_MS", 1000, 0);

const model = await SpeechModel.load({ modelPath, threads, vadModelPath });
const server = speechServer(model, { draftEveryMs, log });
server.listen(port, host, () => {
	const address = server.address();
	const bound = typeof address === "object" && address ? address.port : port;
	log(`speech service on http://${host}:${bound} (model ${model.name}, ${threads} threads, VAD ${model.vadKind})`);
});

const stop = () => {
	server.close();
	server.closeAllConnections();
	void model.release().finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
