/**
 * One live stream (stream-protocol.ts): audio through the voice gate, a draft pass over an open
 * utterance each second of new audio (when the model has nothing more urgent and the previous
 * draft is back), and a final pass when the utterance closes. Finals are sent in utterance
 * order; a draft never follows its final.
 */
import type { RawData, WebSocket } from "ws";
import type { SpeechModel } from "./engine.ts";
import { isWhisperLanguage } from "./languages.ts";
import type { ClientMessage, ServerMessage } from "./stream-protocol.ts";
import { STREAM_SAMPLE_RATE } from "./stream-protocol.ts";
import { type Utterance, VoiceGate } from "./vad.ts";
import { PROMPT_MAX_CHARS, vocabularyPrompt } from "./vocabulary-prompt.ts";

/** Drafts are extra work: none while this many passes already wait. */
const DRAFT_QUEUE_LIMIT = 2;

interface Open {
	draftedAt: number;
	drafting: boolean;
	draftsSent: number;
	closed: boolean;
}

type StartMessage = Extract<ClientMessage, { type: "start" }>;

const samplesOf = (u: Utterance) => u.audio.reduce((sum, frame) => sum + frame.length / 2, 0);

/** Why a start message cannot be served, or null. */
function startRefusal(message: StartMessage): string | null {
	if (message.sample_rate !== STREAM_SAMPLE_RATE) return `sample_rate must be ${STREAM_SAMPLE_RATE} (mono PCM16LE)`;
	if (!isWhisperLanguage(message.language)) return "language must be a code whisper knows, or null";
	if (message.prompt !== undefined && typeof message.prompt !== "string") return "prompt must be a string";
	const words = message.vocabulary;
	if (words !== undefined && !(Array.isArray(words) && words.every((w) => typeof w === "string")))
		return "vocabulary must be a list of strings";
	return null;
}

export interface StreamOptions {
	/** Speech between two drafts of an utterance (SPEECH_DRAFT_MS); 0: finals only. */
	draftEveryMs: number;
	log: (line: string) => void;
}

export function serveStream(socket: WebSocket, model: SpeechModel, o: StreamOptions): void {
	const { log } = o;
	const draftEverySamples = (o.draftEveryMs / 1000) * STREAM_SAMPLE_RATE;
	let settings: StartMessage | null = null;
	let prompt = "";
	const open = new Map<number, Open>();
	let finals: Promise<void> = Promise.resolve();
	const send = (message: ServerMessage) => {
		if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
	};
	const seconds = (samples: number) => Math.round((samples / STREAM_SAMPLE_RATE) * 1000) / 1000;
	const failed = (what: string) => (err: unknown) => {
		log(`speech stream: ${what} failed: ${String(err)}`);
		send({ type: "error", detail: `${what} failed` });
	};

	const draft = (u: Utterance, state: Open) => {
		const samples = samplesOf(u);
		state.drafting = true;
		state.draftedAt = samples;
		const audio = Buffer.concat(u.audio);
		model
			.transcribe(audio, {
				language: settings?.language ?? null,
				prompt,
				draft: true,
				translate: settings?.task === "translate",
				stillWanted: () => !state.closed,
			})
			.then((heard) => {
				if (!heard || state.closed || !heard.text) return;
				state.draftsSent += 1;
				const start = seconds(u.startSample);
				send({ type: "draft", id: u.id, text: heard.text, start, end: seconds(u.startSample + samples), language: heard.language });
			}, failed("a draft pass"))
			.finally(() => {
				state.drafting = false;
			});
	};

	const finish = (u: Utterance, audio: Buffer, state: Open) => {
		const words = settings?.words === true;
		const language = settings?.language ?? null;
		const translate = settings?.task === "translate";
		finals = finals
			.then(async () => {
				// The client went away: nobody would read this final.
				if (socket.readyState !== socket.OPEN) return;
				const heard = (await model.hasSpeech(audio)) ? await model.transcribe(audio, { language, prompt, words, translate }) : null;
				open.delete(u.id);
				if (!heard?.text) {
					if (state.draftsSent > 0) send({ type: "dropped", id: u.id });
					return;
				}
				const start = seconds(u.startSample);
				send({
					type: "final",
					id: u.id,
					text: heard.text,
					start,
					end: seconds(u.startSample + audio.length / 2),
					language: heard.language,
					...(heard.words ? { words: heard.words.map((w) => ({ word: w.word, start: start + w.start, end: start + w.end })) } : {}),
				});
			})
			.catch(failed("a final pass"));
	};

	const gate = new VoiceGate({
		open: (u) => {
			open.set(u.id, { draftedAt: 0, drafting: false, draftsSent: 0, closed: false });
		},
		grow: (u) => {
			const state = open.get(u.id);
			const samples = samplesOf(u);
			const due = draftEverySamples > 0 && samples - (state?.draftedAt ?? 0) >= draftEverySamples;
			if (state && !state.drafting && due && model.waiting < DRAFT_QUEUE_LIMIT) draft(u, state);
		},
		close: (u, audio) => {
			const state = open.get(u.id) ?? { draftedAt: 0, drafting: false, draftsSent: 0, closed: false };
			state.closed = true;
			finish(u, audio, state);
		},
		discard: (u) => {
			const state = open.get(u.id);
			open.delete(u.id);
			if (!state) return;
			state.closed = true;
			// A draft still in flight sees `closed` and stays unsent; one already sent is taken back.
			if (state.draftsSent > 0) send({ type: "dropped", id: u.id });
		},
	});

	const flush = async () => {
		gate.end();
		await finals;
	};

	const onText = (text: string) => {
		let message: ClientMessage;
		try {
			message = JSON.parse(text) as ClientMessage;
		} catch {
			send({ type: "error", detail: "a text frame must be a JSON message" });
			return;
		}
		if (message.type === "start") {
			const refused = startRefusal(message);
			if (refused) {
				send({ type: "error", detail: refused });
				socket.close(1003, "unusable start");
				return;
			}
			settings = message;
			prompt = message.prompt?.slice(0, PROMPT_MAX_CHARS) || (vocabularyPrompt(message.vocabulary ?? []) ?? "");
			send({ type: "ready", model: model.name, sample_rate: STREAM_SAMPLE_RATE, vad: model.vadKind });
		} else if (message.type === "language") {
			if (!isWhisperLanguage(message.language)) send({ type: "error", detail: "language must be a code whisper knows, or null" });
			else if (settings) settings = { ...settings, language: message.language };
		} else if (message.type === "flush") {
			void flush().then(() => send({ type: "flushed" }));
		} else if (message.type === "stop") {
			void flush().then(() => {
				send({ type: "done" });
				socket.close(1000, "done");
			});
		} else send({ type: "error", detail: "unknown message type" });
	};

	socket.on("message", (data: RawData, isBinary: boolean) => {
		const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
		if (!isBinary) onText(bytes.toString("utf8"));
		else if (!settings) send({ type: "error", detail: "send a start message before audio" });
		else gate.push(bytes);
	});
	socket.on("close", () => {
		for (const state of open.values()) state.closed = true;
	});
}
