/** Test helpers: the speech service as its own process on the tiny model, and audio to feed it. */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { encodeWav } from "../../bot/wav.ts";
import { decodeWav } from "../audio.ts";
import { SAMPLE_RATE } from "../vad.ts";
import { type TinyModelOptions, writeTinyModel } from "./tiny-model.ts";

const MAIN = path.join(import.meta.dirname, "..", "main.ts");

export interface RunningService {
	url: string;
	child: ChildProcess;
	stop: () => Promise<void>;
}

/** Starts `node bot-host/speech/main.ts` on a free port and waits for its listening line. */
export async function startSpeechService(env: Record<string, string> = {}, model: TinyModelOptions = {}): Promise<RunningService> {
	// A model given in `env` is the caller's; the generated one goes with the service.
	const generated = env.SPEECH_MODEL ? null : writeTinyModel(model);
	const child = spawn(process.execPath, [MAIN], {
		env: { ...process.env, ...(generated ? { SPEECH_MODEL: generated } : {}), SPEECH_PORT: "0", SPEECH_THREADS: "1", ...env },
		stdio: ["ignore", "ignore", "pipe"],
	});
	let log = "";
	const url = await new Promise<string>((resolve, reject) => {
		child.stderr?.on("data", (chunk: Buffer) => {
			log += chunk.toString();
			const listening = /speech service on (http:\/\/\S+)/.exec(log);
			if (listening?.[1]) resolve(listening[1]);
		});
		child.on("exit", (code) => reject(new Error(`the speech service exited (${code}): ${log.slice(-2000)}`)));
	});
	const stop = async () => {
		if (child.exitCode === null) {
			const exited = new Promise((resolve) => child.once("exit", resolve));
			child.kill("SIGTERM");
			await exited;
		}
		if (generated) rmSync(path.dirname(generated), { recursive: true, force: true });
	};
	return { url, child, stop };
}

/** Spoken English from espeak-ng (22.05 kHz), brought to 16 kHz mono PCM16 by the service's own decoder. */
export function speech(text: string, o: { voice?: string; speed?: number } = {}): Buffer {
	const args = ["-v", o.voice ?? "en", "-s", String(o.speed ?? 150), "--stdout", text];
	return decodeWav(execFileSync("espeak-ng", args, { maxBuffer: 64 * 1024 * 1024 }));
}

/** A 16 kHz mono PCM16 WAV file around samples. */
export const wav = (pcm: Buffer) => encodeWav(pcm, SAMPLE_RATE);

export function silence(ms: number): Buffer {
	return Buffer.alloc(Math.round((ms / 1000) * SAMPLE_RATE) * 2);
}

/** White noise at a level (RMS, 0..1) from a fixed seed. */
export function noise(ms: number, level: number, seed = 7): Buffer {
	const out = silence(ms);
	let state = seed;
	const amplitude = level * Math.sqrt(3) * 0x7fff;
	for (let i = 0; i < out.length / 2; i++) {
		state = (state * 1103515245 + 12345) >>> 0;
		out.writeInt16LE(Math.round((state / 0xffffffff - 0.5) * 2 * amplitude), i * 2);
	}
	return out;
}

/** Two signals added sample by sample (clipped), the shorter one padded with silence. */
export function mix(a: Buffer, b: Buffer): Buffer {
	const out = Buffer.alloc(Math.max(a.length, b.length));
	for (let i = 0; i < out.length / 2; i++) {
		const sum = (i * 2 < a.length ? a.readInt16LE(i * 2) : 0) + (i * 2 < b.length ? b.readInt16LE(i * 2) : 0);
		out.writeInt16LE(Math.max(-0x8000, Math.min(0x7fff, sum)), i * 2);
	}
	return out;
}

export const seconds = (pcm: Buffer) => pcm.length / 2 / SAMPLE_RATE;
