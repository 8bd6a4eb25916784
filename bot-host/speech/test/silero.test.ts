import { rmSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { silence, speech, startSpeechService, wav } from "./service.ts";
import { writeTinyVad } from "./tiny-vad.ts";

const made: string[] = [];
afterAll(() => {
	for (const file of made) rmSync(path.dirname(file), { recursive: true, force: true });
});

async function transcribeWith(hears: "speech" | "nothing"): Promise<{ health: unknown; answer: unknown }> {
	const vad = writeTinyVad(hears);
	made.push(vad);
	const service = await startSpeechService({ SPEECH_VAD_MODEL: vad });
	try {
		const form = new FormData();
		const audio = Buffer.concat([silence(1000), speech("Silero decides whether whisper hears this."), silence(1000)]);
		form.set("file", new Blob([new Uint8Array(wav(audio))], { type: "audio/wav" }), "meeting.wav");
		form.set("response_format", "verbose_json");
		const res = await fetch(`${service.url}/v1/audio/transcriptions`, { method: "POST", body: form });
		return { health: await (await fetch(`${service.url}/health`)).json(), answer: await res.json() };
	} finally {
		await service.stop();
	}
}

describe("silero as a second voice gate (SPEECH_VAD_MODEL)", () => {
	it("loads the VAD model and keeps from whisper what it hears no speech in", async () => {
		const { health, answer } = await transcribeWith("nothing");
		expect(health).toMatchObject({ vad: "energy+silero" });
		expect(answer).toMatchObject({ text: "", segments: [] });
	});

	it("lets through what it hears speech in", async () => {
		const { answer } = await transcribeWith("speech");
		const { text, segments } = answer as { text: string; segments: unknown[] };
		expect(text.length).toBeGreaterThan(0);
		expect(segments.length).toBeGreaterThan(0);
	});
});
