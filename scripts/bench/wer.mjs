// `npm run bench -- wer`: word error rate and speed of the speech service (bot-host/speech) on
// clips espeak-ng speaks from known texts, for the model present: SPEECH_MODEL, else the newest in
// the local models folder (npm run models), else the tiny generated one of the tests, which has
// random weights: then the WER says nothing and the speed is the pipeline's, not a real model's.
// Also the cost of one bot's live stream: CPU seconds per second of meeting audio, and the RSS.
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import WebSocket from "ws";
import { speech, startSpeechService, wav } from "../../bot-host/speech/test/service.ts";
import { findSpeechModel } from "../local-speech.mjs";
import { localStateDir } from "../local-stack.mjs";

/** Sentences a meeting might hold, with names and numbers; each spoken by two voices. */
const TEXTS = [
	"Good morning everyone, let us get started with the weekly planning meeting.",
	"The release is scheduled for Thursday, after the security review is finished.",
	"Priya will share the quarterly numbers and the hiring plan for the support team.",
	"Can everyone see my screen? I am going to open the roadmap document now.",
	"We missed the deadline by two days because the database migration took longer than expected.",
	"Please send your comments before Friday so that we can update the proposal.",
	"The customer asked whether the new dashboard works on mobile phones and tablets.",
	"Let us take a five minute break and then continue with the budget discussion.",
];
const VOICES = [
	["en-us", "160"],
	["en-gb", "140"],
];
const SAMPLE_RATE = 16_000;

const speak = (text, voice, speed) => speech(text, { voice, speed: Number(speed) });

const words = (text) =>
	text
		.toLowerCase()
		.replace(/[^\p{L}\p{N}' ]+/gu, " ")
		.split(/\s+/)
		.filter(Boolean);

/** Word-level edit distance (substitutions, deletions, insertions). */
function editDistance(reference, hypothesis) {
	let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
	for (let i = 1; i <= reference.length; i++) {
		const row = [i];
		for (let j = 1; j <= hypothesis.length; j++) {
			const cost = reference[i - 1] === hypothesis[j - 1] ? 0 : 1;
			row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost);
		}
		previous = row;
	}
	return previous[hypothesis.length];
}

/** CPU seconds (user + system) and RSS / peak RSS (MiB) of a process, from /proc. */
function usage(pid) {
	const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
	const ticks = Number(stat[11]) + Number(stat[12]);
	const status = readFileSync(`/proc/${pid}/status`, "utf8");
	const kib = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
	return { cpu: ticks / 100, rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}

async function transcribe(url, pcm, language) {
	const form = new FormData();
	form.set("file", new Blob([wav(pcm)], { type: "audio/wav" }), "clip.wav");
	form.set("model", "whisper-1");
	form.set("language", language);
	const started = performance.now();
	const res = await fetch(`${url}/v1/audio/transcriptions`, { method: "POST", body: form });
	if (!res.ok) throw new Error(`the speech service answered ${res.status}: ${await res.text()}`);
	return { text: (await res.json()).text, seconds: (performance.now() - started) / 1000 };
}

/** One bot's stream in real time: the meeting's audio, a third of it silence, drafts and finals as a bot gets them. */
async function streamCost(url, pid, audio) {
	const socket = new WebSocket(`${url.replace(/^http/, "ws")}/v1/audio/stream`);
	const counts = { draft: 0, final: 0 };
	socket.on("message", (data) => {
		const message = JSON.parse(String(data));
		if (message.type in counts) counts[message.type] += 1;
	});
	await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
	socket.send(JSON.stringify({ type: "start", language: "en", sample_rate: SAMPLE_RATE, words: true }));
	const before = usage(pid);
	const started = performance.now();
	const chunk = 3200;
	for (let at = 0; at < audio.length; at += chunk) {
		socket.send(audio.subarray(at, at + chunk));
		const due = started + ((at + chunk) / 2 / SAMPLE_RATE) * 1000;
		await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
	}
	const closed = new Promise((resolve) => socket.once("close", resolve));
	socket.send(JSON.stringify({ type: "stop" }));
	await closed;
	const after = usage(pid);
	return { cpu: after.cpu - before.cpu, audioSeconds: audio.length / 2 / SAMPLE_RATE, ...counts, peak: after.peak };
}

export async function benchWer() {
	const found = findSpeechModel(localStateDir());
	const threads = process.env.SPEECH_THREADS || String(availableParallelism());
	const generated = found === null;
	const service = await startSpeechService({ ...(found ? { SPEECH_MODEL: found } : {}), SPEECH_THREADS: threads });
	const pid = service.child.pid;
	try {
		const model = generated ? "the generated test model (random weights)" : path.basename(found);
		console.log(`\n## Speech: word error rate and speed (${model}, ${threads} threads)`);
		if (generated)
			console.log(
				"Only the generated model is present: the WER below is meaningless and the speed is the pipeline's.\n" +
					"For real figures: npm run models -- base.en (or SPEECH_MODEL=<file>), then run this again.",
			);
		const loaded = usage(pid);
		let errors = 0;
		let total = 0;
		let audioSeconds = 0;
		let wallSeconds = 0;
		const cpuBefore = loaded.cpu;
		const rows = [];
		for (const [voice, speed] of VOICES) {
			for (const text of TEXTS) {
				const pcm = speak(text, voice, speed);
				const heard = await transcribe(service.url, pcm, "en");
				const reference = words(text);
				const distance = editDistance(reference, words(heard.text));
				errors += distance;
				total += reference.length;
				audioSeconds += pcm.length / 2 / SAMPLE_RATE;
				wallSeconds += heard.seconds;
				rows.push({ voice, wer: distance / reference.length, rtf: heard.seconds / (pcm.length / 2 / SAMPLE_RATE), heard: heard.text });
			}
		}
		const cpuSeconds = usage(pid).cpu - cpuBefore;
		for (const row of rows)
			console.log(
				`  ${row.voice.padEnd(6)} WER ${(row.wer * 100).toFixed(0).padStart(4)}%  RTF ${row.rtf.toFixed(2)}  ${row.heard.slice(0, 70)}`,
			);
		console.log(`Clips:             ${rows.length} (${audioSeconds.toFixed(1)} s of speech)`);
		console.log(`WER:               ${((errors / total) * 100).toFixed(1)}%${generated ? "  (meaningless: random weights)" : ""}`);
		console.log(
			`Real-time factor:  ${(wallSeconds / audioSeconds).toFixed(3)} (seconds of work per second of audio, one request at a time)`,
		);
		console.log(`CPU per audio s:   ${(cpuSeconds / audioSeconds).toFixed(3)} CPU-seconds`);
		console.log(`RSS:               ${loaded.rss.toFixed(0)} MiB loaded, ${usage(pid).peak.toFixed(0)} MiB peak`);

		const meeting = Buffer.concat(TEXTS.slice(0, 4).flatMap((text) => [speak(text, "en-us", "160"), Buffer.alloc(SAMPLE_RATE * 2 * 2)]));
		const live = await streamCost(service.url, pid, meeting);
		console.log(
			`One bot's stream:  ${(live.cpu / live.audioSeconds).toFixed(3)} CPU-seconds per second of meeting audio ` +
				`(${live.audioSeconds.toFixed(0)} s, a third silent; ${live.draft} drafts, ${live.final} finals), peak RSS ${live.peak.toFixed(0)} MiB`,
		);
	} finally {
		await service.stop();
	}
}
