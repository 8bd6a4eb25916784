import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type ClientMessage, type ServerMessage, STREAM_PATH } from "../stream-protocol.ts";
import { noise, type RunningService, seconds, silence, speech, startSpeechService } from "./service.ts";

let service: RunningService;
beforeAll(async () => {
	service = await startSpeechService();
});
afterAll(() => service?.stop());

type Heard = Extract<ServerMessage, { type: "draft" | "final" }>;

/**
 * Streams audio in 100 ms frames, then sends `stop` and collects every message until the service
 * closes. With `pauseAt`, sending stops there until a draft arrives (the utterance is still open
 * then, so a draft must come, however slow the machine), and goes on after it.
 */
async function stream(
	audio: Buffer,
	o: { start?: Partial<Extract<ClientMessage, { type: "start" }>>; pauseAt?: number; url?: string } = {},
): Promise<ServerMessage[]> {
	const socket = new WebSocket((o.url ?? service.url).replace(/^http/, "ws") + STREAM_PATH);
	const messages: ServerMessage[] = [];
	let drafted = () => {};
	const firstDraft = new Promise<void>((resolve) => {
		drafted = resolve;
	});
	socket.on("message", (data) => {
		const message = JSON.parse(String(data)) as ServerMessage;
		messages.push(message);
		if (message.type === "draft") drafted();
	});
	const closed = new Promise((resolve) => socket.once("close", resolve));
	await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
	socket.send(JSON.stringify({ type: "start", language: "en", sample_rate: 16_000, words: true, ...o.start }));
	const pauseByte = o.pauseAt === undefined ? -1 : Math.round(o.pauseAt * 16_000) * 2;
	for (let at = 0; at < audio.length; at += 3200) {
		if (at <= pauseByte && pauseByte < at + 3200) await firstDraft;
		socket.send(audio.subarray(at, at + 3200));
		await sleep(10);
	}
	socket.send(JSON.stringify({ type: "stop" }));
	await closed;
	return messages;
}

describe("the live stream: drafts, then confirmations", () => {
	it("sends drafts and then one final per utterance, in order, timed inside the speech", async () => {
		const first = speech("Welcome to the planning meeting. Today we look at the launch date and the budget.");
		const second = speech("Next, the hiring plan for the support team in the spring.");
		const secondAt = 2 + seconds(first) + 2.5;
		const audio = Buffer.concat([silence(2000), first, silence(2500), second, silence(2000)]);
		const messages = await stream(audio, { pauseAt: 2 + 2 });

		expect(messages[0]).toEqual({ type: "ready", model: "ggml-tiny-test", sample_rate: 16_000, vad: "energy" });
		expect(messages.at(-1)).toEqual({ type: "done" });
		const heard = messages.filter((m): m is Heard => m.type === "draft" || m.type === "final");
		const finals = heard.filter((m) => m.type === "final");
		expect(finals.map((m) => m.id)).toEqual([1, 2]);
		expect(heard.some((m) => m.type === "draft")).toBe(true);
		for (const final of finals) {
			const mine = heard.filter((m) => m.id === final.id);
			// Every draft of an utterance comes before its final, with the same start, never past its end.
			expect(mine.at(-1)).toBe(final);
			for (const draft of mine.slice(0, -1)) {
				expect(draft.type).toBe("draft");
				expect(draft.start).toBe(final.start);
				expect(draft.end).toBeLessThanOrEqual(final.end);
				expect(draft.text.length).toBeGreaterThan(0);
			}
			expect(final.text.length).toBeGreaterThan(0);
			expect(final.language).toBe("en");
			expect(final.end).toBeGreaterThan(final.start);
			for (const word of final.words ?? []) {
				expect(word.start).toBeGreaterThanOrEqual(final.start);
				expect(word.end).toBeLessThanOrEqual(final.end + 0.001);
			}
		}
		const [one, two] = finals as [Heard, Heard];
		// The silences stay outside (up to the gate's 200 ms pre-roll and tail).
		expect(one.start).toBeGreaterThanOrEqual(1.7);
		expect(one.end).toBeLessThanOrEqual(2 + seconds(first) + 0.5);
		expect(two.start).toBeGreaterThanOrEqual(secondAt - 0.3);
		expect(two.end).toBeLessThanOrEqual(secondAt + seconds(second) + 0.5);
	});

	it("sends finals only when drafts are off (SPEECH_DRAFT_MS=0)", async () => {
		const finalsOnly = await startSpeechService({ SPEECH_DRAFT_MS: "0" });
		try {
			const said = speech("A long enough sentence for several drafts, were they on.");
			const messages = await stream(Buffer.concat([silence(500), said, silence(1000)]), { url: finalsOnly.url });
			expect(messages.map((m) => m.type)).toEqual(["ready", "final", "done"]);
		} finally {
			await finalsOnly.stop();
		}
	});

	it("sends nothing at all for silence and low noise", async () => {
		const messages = await stream(Buffer.concat([silence(3000), noise(3000, 0.005), noise(3000, 0.02)]));
		expect(messages.map((m) => m.type)).toEqual(["ready", "done"]);
	});

	it("answers flush with what was open confirmed first", async () => {
		const socket = new WebSocket(service.url.replace(/^http/, "ws") + STREAM_PATH);
		const messages: ServerMessage[] = [];
		socket.on("message", (data) => messages.push(JSON.parse(String(data)) as ServerMessage));
		await new Promise((resolve) => socket.once("open", resolve));
		socket.send(JSON.stringify({ type: "start", language: null, sample_rate: 16_000, vocabulary: ["Kubernetes", "Zeynep"] }));
		// Speech that is still going when the flush arrives: no trailing silence closes it.
		socket.send(Buffer.concat([silence(500), speech("Zeynep will deploy the Kubernetes cluster")]));
		socket.send(JSON.stringify({ type: "flush" }));
		await new Promise<void>((resolve) => socket.on("message", () => messages.at(-1)?.type === "flushed" && resolve()));
		const types = messages.map((m) => m.type).filter((t) => t !== "draft");
		expect(types).toEqual(["ready", "final", "flushed"]);
		socket.close();
	});

	it("takes a new language for the utterances after it", async () => {
		const said = speech("First in English, then the meeting switches language.");
		const socket = new WebSocket(service.url.replace(/^http/, "ws") + STREAM_PATH);
		const finals: Heard[] = [];
		socket.on("message", (data) => {
			const message = JSON.parse(String(data)) as ServerMessage;
			if (message.type === "final") finals.push(message);
		});
		const closed = new Promise((resolve) => socket.once("close", resolve));
		await new Promise((resolve) => socket.once("open", resolve));
		socket.send(JSON.stringify({ type: "start", language: "en", sample_rate: 16_000 }));
		socket.send(Buffer.concat([silence(300), said, silence(1000)]));
		socket.send(JSON.stringify({ type: "flush" }));
		while (finals.length < 1) await sleep(20);
		socket.send(JSON.stringify({ type: "language", language: "de" }));
		socket.send(Buffer.concat([said, silence(1000)]));
		socket.send(JSON.stringify({ type: "stop" }));
		await closed;
		expect(finals.map((f) => f.language)).toEqual(["en", "de"]);
	});

	it("refuses a start it cannot serve: another sample rate, a language whisper does not know", async () => {
		for (const [start, detail] of [
			[{ language: "en", sample_rate: 48_000 }, "sample_rate must be 16000 (mono PCM16LE)"],
			[{ language: "klingon", sample_rate: 16_000 }, "language must be a code whisper knows, or null"],
			[{ language: null, sample_rate: 16_000, vocabulary: "Zeynep" }, "vocabulary must be a list of strings"],
		] as const) {
			const socket = new WebSocket(service.url.replace(/^http/, "ws") + STREAM_PATH);
			const messages: ServerMessage[] = [];
			socket.on("message", (data) => messages.push(JSON.parse(String(data)) as ServerMessage));
			const closed = new Promise<number>((resolve) => socket.once("close", resolve));
			await new Promise((resolve) => socket.once("open", resolve));
			socket.send(JSON.stringify({ type: "start", ...start }));
			expect(await closed).toBe(1003);
			expect(messages).toEqual([{ type: "error", detail }]);
		}
	});

	it("refuses audio before start, and goes on once started", async () => {
		const socket = new WebSocket(service.url.replace(/^http/, "ws") + STREAM_PATH);
		const messages: ServerMessage[] = [];
		socket.on("message", (data) => messages.push(JSON.parse(String(data)) as ServerMessage));
		const closed = new Promise<number>((resolve) => socket.once("close", resolve));
		await new Promise((resolve) => socket.once("open", resolve));
		socket.send(silence(100));
		socket.send(JSON.stringify({ type: "start", language: "en", sample_rate: 16_000 }));
		socket.send(JSON.stringify({ type: "language", language: "xx" }));
		socket.send(JSON.stringify({ type: "stop" }));
		expect(await closed).toBe(1000);
		expect(messages).toEqual([
			{ type: "error", detail: "send a start message before audio" },
			{ type: "ready", model: "ggml-tiny-test", sample_rate: 16_000, vad: "energy" },
			{ type: "error", detail: "language must be a code whisper knows, or null" },
			{ type: "done" },
		]);
	});
});
