// The speech service in the local stack (docs/speech.md): where `npm run models` puts model
// files, which one `npm start` uses, and starting the service as its own process.
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { detailOutput, redactedLines, run } from "./processes.mjs";
import { bin, root } from "./toolchain.mjs";

/** The models folder beside the local data (`.local/state/models` unless LOCAL_STATE_DIR moves it). */
export const modelsDir = (stateDir) => path.join(stateDir, "models");

/**
 * The whisper model `npm start` serves: SPEECH_MODEL (a path) when set, else the newest
 * `ggml-*.bin` in the models folder that is not a VAD model; null when there is none.
 */
export function findSpeechModel(stateDir, env = process.env) {
	if (env.SPEECH_MODEL) return path.resolve(env.SPEECH_MODEL);
	const dir = modelsDir(stateDir);
	if (!existsSync(dir)) return null;
	const models = readdirSync(dir)
		.filter((name) => /^ggml-.+\.bin$/.test(name) && !name.includes("silero"))
		.map((name) => path.join(dir, name))
		.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
	return models[0] ?? null;
}

/** The silero VAD model when SPEECH_VAD_MODEL names one or the models folder holds one. */
export function findVadModel(stateDir, env = process.env) {
	if (env.SPEECH_VAD_MODEL) return env.SPEECH_VAD_MODEL;
	const dir = modelsDir(stateDir);
	const found = existsSync(dir) ? readdirSync(dir).find((name) => /^ggml-silero.*\.bin$/.test(name)) : undefined;
	return found ? path.join(dir, found) : null;
}

/**
 * The Worker's engine setting for the local stack: `builtin` when the speech service runs,
 * unless the user chose (TRANSCRIPTION_ENGINE, or an endpoint with TRANSCRIPTION_URL) in the
 * environment or .dev.vars. Returns the vars to pass to wrangler dev.
 */
export function engineVars(speechRunning, devVars, env = process.env) {
	if (env.TRANSCRIPTION_ENGINE) return { TRANSCRIPTION_ENGINE: env.TRANSCRIPTION_ENGINE };
	if (devVars.TRANSCRIPTION_ENGINE || devVars.TRANSCRIPTION_URL || env.TRANSCRIPTION_URL) return {};
	return speechRunning ? { TRANSCRIPTION_ENGINE: "builtin" } : {};
}

/**
 * The speech service for `npm start`, or why there is none (for the banner): no model, or a
 * SPEECH_MODEL that names no file.
 */
export async function localSpeech({ stateDir, port, waitForHealth, env = process.env }) {
	const modelPath = findSpeechModel(stateDir, env);
	if (!modelPath) return { running: null, missing: "no model" };
	if (!existsSync(modelPath)) return { running: null, missing: `SPEECH_MODEL names no file (${modelPath})` };
	const running = await startSpeechService({ port, modelPath, vadModelPath: findVadModel(stateDir, env), waitForHealth });
	return { running, missing: null };
}

/** Starts `node bot-host/speech/main.ts` on loopback `port`; resolves once /health answers. */
export async function startSpeechService({ port, modelPath, vadModelPath, waitForHealth }) {
	const child = run(bin("node"), [path.join(root, "bot-host", "speech", "main.ts")], {
		stdio: ["ignore", "pipe", "pipe"],
		env: {
			...process.env,
			SPEECH_MODEL: modelPath,
			SPEECH_PORT: String(port),
			SPEECH_HOST: "127.0.0.1",
			...(vadModelPath ? { SPEECH_VAD_MODEL: vadModelPath } : {}),
		},
	});
	redactedLines(child.stdout, detailOutput().out, "[speech] ");
	redactedLines(child.stderr, detailOutput().err, "[speech] ");
	const url = `http://127.0.0.1:${port}`;
	try {
		await waitForHealth(`${url}/health`, 60_000);
	} catch (err) {
		child.kill("SIGTERM");
		throw err;
	}
	return { child, url, model: path.basename(modelPath) };
}
