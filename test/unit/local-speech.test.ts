/**
 * The speech service in `npm start` (scripts/local-speech.mjs): which model file it serves, when the
 * Worker's engine becomes `builtin`, and the banner's line for it.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { engineVars, findSpeechModel, findVadModel, modelsDir } from "../../scripts/local-speech.mjs";
import { startBanner } from "../../scripts/start-banner.mjs";

const made: string[] = [];
afterAll(() => {
	for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function stateWith(files: [string, number][]): string {
	const state = mkdtempSync(path.join(os.tmpdir(), "speech-state-"));
	made.push(state);
	mkdirSync(modelsDir(state), { recursive: true });
	for (const [name, age] of files) {
		const file = path.join(modelsDir(state), name);
		writeFileSync(file, "ggml");
		const when = new Date(Date.now() - age * 1000);
		utimesSync(file, when, when);
	}
	return state;
}

describe("the speech service in npm start", () => {
	it("serves SPEECH_MODEL when set, else the newest whisper model in the models folder, never the VAD one", () => {
		const state = stateWith([
			["ggml-base.en.bin", 300],
			["ggml-small.bin", 100],
			["ggml-silero-v5.1.2.bin", 10],
			["notes.txt", 1],
		]);
		expect(findSpeechModel(state, {})).toBe(path.join(modelsDir(state), "ggml-small.bin"));
		expect(findVadModel(state, {})).toBe(path.join(modelsDir(state), "ggml-silero-v5.1.2.bin"));
		expect(findSpeechModel(state, { SPEECH_MODEL: "/srv/models/ggml-medium.bin" })).toBe("/srv/models/ggml-medium.bin");
		expect(findSpeechModel(stateWith([]), {})).toBeNull();
		expect(findSpeechModel(path.join(os.tmpdir(), "no-such-state"), {})).toBeNull();
	});

	it("makes the Worker's engine builtin only when the service runs and the user chose no engine", () => {
		expect(engineVars(true, {}, {})).toEqual({ TRANSCRIPTION_ENGINE: "builtin" });
		expect(engineVars(false, {}, {})).toEqual({});
		expect(engineVars(true, {}, { TRANSCRIPTION_ENGINE: "captions" })).toEqual({ TRANSCRIPTION_ENGINE: "captions" });
		expect(engineVars(true, { TRANSCRIPTION_ENGINE: "deepgram" }, {})).toEqual({});
		expect(engineVars(true, { TRANSCRIPTION_URL: "http://127.0.0.1:9000" }, {})).toEqual({});
		expect(engineVars(true, {}, { TRANSCRIPTION_URL: "http://127.0.0.1:9000" })).toEqual({});
	});

	it("puts one Speech line in the banner: the model and address, or how to get a model", () => {
		const common = {
			version: "1.0.0",
			base: "http://127.0.0.1:18056",
			stateDir: "/tmp/state",
			adminToken: null,
			first: { fresh: false, user_id: 1 },
			sandbox: null,
			spawnQueue: { url: "http://127.0.0.1:18059" },
			hosts: [],
			logFile: "/tmp/state/logs/start.log",
		};
		const speechLines = (speech: unknown) => startBanner({ ...common, speech }).filter((line) => line.startsWith("Speech:"));
		expect(speechLines({ running: { model: "ggml-base.en.bin", url: "http://127.0.0.1:18055" }, missing: null })).toEqual([
			"Speech:       ggml-base.en.bin on http://127.0.0.1:18055 (docs/speech.md)",
		]);
		expect(speechLines({ running: null, missing: "no model" })).toEqual([
			"Speech:       no model; for transcripts without captions: npm run models -- base.en (docs/speech.md)",
		]);
	});
});
