/**
 * The meeting's audio as the bot hears it (captured in the page, 16 kHz mono): written to a
 * temporary file for the WAV recording when recording is on (a long meeting would not fit in
 * the memory the host shares between its bots), and fed to the transcriber when an endpoint
 * is set. Also remembers who the platform showed as speaking, to attribute transcribed speech.
 */
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { BotSegment } from "../../src/bot-channel/protocol.ts";
import { SAMPLE_RATE, type Transcriber } from "./transcriber.ts";
import { wavHeader } from "./wav.ts";

/** Recorded samples on disk; remove() when done with them. */
export interface RecordingFile {
	path: string;
	pcmBytes: number;
	remove(): Promise<void>;
}

export class MeetingAudio {
	private recordingFile: { path: string; stream: WriteStream; bytes: number } | null = null;
	private capturedBytes = 0;
	private readonly speakers: { at: number; names: string[] }[] = [];
	private readonly recording: boolean;
	transcriber: Transcriber | null = null;
	private readonly callOffsetMs: () => number;

	constructor(o: { recording: boolean; callOffsetMs: () => number }) {
		this.recording = o.recording;
		this.callOffsetMs = o.callOffsetMs;
	}

	push(pcm: Buffer): void {
		if (this.recording) this.record(pcm);
		this.capturedBytes += pcm.length;
		this.transcriber?.push(pcm, this.callOffsetMs());
	}

	/** Active speakers seen at a call offset (from the driver's snapshot). */
	noteSpeakers(names: string[]): void {
		if (names.length > 0) this.speakers.push({ at: this.callOffsetMs(), names });
		if (this.speakers.length > 10_000) this.speakers.splice(0, 5_000);
	}

	/** The name shown speaking most often in a window; `none` when nobody was. */
	speakerBetween(fromMs: number, toMs: number): { speaker: string; source: BotSegment["speaker_source"] } {
		const counts = new Map<string, number>();
		for (const s of this.speakers) {
			if (s.at < fromMs - 300 || s.at > toMs + 300) continue;
			for (const name of s.names) counts.set(name, (counts.get(name) ?? 0) + 1);
		}
		const best = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
		return best ? { speaker: best[0], source: "active_speaker" } : { speaker: "", source: "none" };
	}

	/** Where the recording is being written (null until the first samples). */
	get recordingPath(): string | null {
		return this.recordingFile?.path ?? null;
	}

	private record(pcm: Buffer): void {
		if (!this.recordingFile) {
			const file = path.join(tmpdir(), `bot-recording-${randomBytes(8).toString("hex")}.pcm`);
			// Created new (never an existing file) and readable by this user only.
			const stream = createWriteStream(file, { flags: "wx", mode: 0o600 });
			this.recordingFile = { path: file, stream, bytes: 0 };
		}
		this.recordingFile.stream.write(pcm);
		this.recordingFile.bytes += pcm.length;
	}

	get seconds(): number {
		return this.capturedBytes / 2 / SAMPLE_RATE;
	}

	/** The recorded samples, flushed to disk; null when recording is off or nothing was heard. */
	async finishRecording(): Promise<RecordingFile | null> {
		const file = this.recordingFile;
		if (!file) return null;
		this.recordingFile = null;
		const remove = () => rm(file.path, { force: true });
		try {
			await new Promise<void>((resolve, reject) => {
				file.stream.once("error", reject);
				file.stream.end(() => resolve());
			});
		} catch (err) {
			await remove();
			throw err;
		}
		if (file.bytes === 0) {
			await remove();
			return null;
		}
		return { path: file.path, pcmBytes: file.bytes, remove };
	}
}

/** Finish the recording, upload it when there is somewhere to, and remove its file either way. */
export async function deliverRecording(audio: MeetingAudio, url: string | undefined, token: string): Promise<void> {
	const recording = await audio.finishRecording();
	if (!recording) return;
	try {
		if (url) await uploadRecording(url, token, recording);
	} finally {
		await recording.remove();
	}
}

/** PUT the finished recording as a WAV body, streamed from its file, with the channel token. */
export async function uploadRecording(url: string, token: string, recording: RecordingFile): Promise<void> {
	const target = new URL(url);
	const header = wavHeader(recording.pcmBytes, SAMPLE_RATE);
	const client = target.protocol === "https:" ? https : http;
	const status = await new Promise<number>((resolve, reject) => {
		const req = client.request(target, {
			method: "PUT",
			headers: {
				"content-type": "audio/wav",
				"content-length": String(header.length + recording.pcmBytes),
				authorization: `Bearer ${token}`,
				"x-sample-rate": String(SAMPLE_RATE),
			},
		});
		// An upload that stalls for a minute is given up; a long one that keeps moving is not.
		req.setTimeout(60_000, () => req.destroy(new Error("recording upload stalled")));
		req.once("response", (res) => {
			res.resume();
			resolve(res.statusCode ?? 0);
		});
		req.once("error", reject);
		req.write(header);
		pipeline(createReadStream(recording.path), req).catch(reject);
	});
	if (status < 200 || status >= 300) throw new Error(`recording upload answered ${status}`);
}
