/**
 * The meeting's audio as the bot hears it (captured in the page, 16 kHz mono): written to a
 * temporary file for the WAV recording when recording is on (a long meeting would not fit in
 * the memory the host shares between its bots), and fed to the transcriber when an endpoint
 * is set. Also remembers who the platform showed as speaking, to attribute transcribed speech.
 *
 * The recording has a cap (the WAV file, header included): past it nothing more is written and
 * `onRecordingStopped` is told once, while capture and transcription go on. A meeting longer
 * than the cap thus costs the host's disk no more than the cap, and never records more than the
 * upload takes.
 */
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import http from "node:http";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { type BotSegment, RECORDING_MAX_BYTES, type SpawnRequest } from "../../src/bot-channel/protocol.ts";
import { SAMPLE_RATE, type SpeechEngine } from "./transcription/engine.ts";
import { WAV_HEADER_BYTES, wavHeader } from "./wav.ts";

/** Recorded samples on disk; remove() when done with them. */
export interface RecordingFile {
	path: string;
	pcmBytes: number;
	remove(): Promise<void>;
}

/** The largest recording file a bot writes: its host's cap (BOT_RECORDING_MAX_BYTES), or the upload's limit when smaller. */
export function recordingCap(hostCap: number | undefined, spawn: Pick<SpawnRequest, "recording_max_bytes">): number {
	return Math.min(hostCap ?? RECORDING_MAX_BYTES, spawn.recording_max_bytes ?? Number.POSITIVE_INFINITY);
}

/** Samples a recording may hold under a file cap: what is left after the header, in whole 16-bit samples. */
function recordablePcmBytes(maxFileBytes: number): number {
	const room = Math.max(0, Math.floor(maxFileBytes) - WAV_HEADER_BYTES);
	return room - (room % 2);
}

export class MeetingAudio {
	private recordingFile: { path: string; stream: WriteStream; bytes: number } | null = null;
	private capturedBytes = 0;
	private readonly speakers: { at: number; names: string[] }[] = [];
	private readonly recording: boolean;
	private readonly maxPcmBytes: number;
	private readonly onRecordingStopped: (fileBytes: number) => void;
	/** Full or finished: nothing more is written. */
	private recordingClosed = false;
	private recordedBytes = 0;
	transcriber: SpeechEngine | null = null;
	/** The streamed recording's encoder (recording/streamed-recording.ts), when it records instead of the WAV. */
	recorder: { push(pcm: Buffer): void } | null = null;
	private readonly callOffsetMs: () => number;

	constructor(o: {
		recording: boolean;
		callOffsetMs: () => number;
		/** The largest WAV file, header included (recordingCap). */
		maxRecordingBytes: number;
		/** Told once, with the size of the file it will be (header included), when the recording reached its cap. */
		onRecordingStopped?: (fileBytes: number) => void;
	}) {
		this.recording = o.recording;
		this.callOffsetMs = o.callOffsetMs;
		this.maxPcmBytes = recordablePcmBytes(o.maxRecordingBytes);
		this.onRecordingStopped = o.onRecordingStopped ?? (() => {});
	}

	/** Bytes the recording may still add to the disk (0 when off, full or finished). */
	get recordingRoomLeft(): number {
		return this.recording && !this.recordingClosed ? WAV_HEADER_BYTES + this.maxPcmBytes - this.recordedBytes : 0;
	}

	push(pcm: Buffer): void {
		if (this.recording) this.record(pcm);
		this.recorder?.push(pcm);
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
		if (this.recordingClosed) return;
		const room = this.maxPcmBytes - this.recordedBytes;
		const kept = pcm.length <= room ? pcm : pcm.subarray(0, room);
		if (kept.length > 0) {
			if (!this.recordingFile) {
				const file = path.join(tmpdir(), `bot-recording-${randomBytes(8).toString("hex")}.pcm`);
				// Created new (never an existing file) and readable by this user only.
				const stream = createWriteStream(file, { flags: "wx", mode: 0o600 });
				this.recordingFile = { path: file, stream, bytes: 0 };
			}
			this.recordingFile.stream.write(kept);
			this.recordingFile.bytes += kept.length;
			this.recordedBytes += kept.length;
		}
		if (kept.length < pcm.length) {
			this.recordingClosed = true;
			this.onRecordingStopped(WAV_HEADER_BYTES + this.recordedBytes);
		}
	}

	get seconds(): number {
		return this.capturedBytes / 2 / SAMPLE_RATE;
	}

	/** The recorded samples, flushed to disk; null when recording is off or nothing was heard. */
	async finishRecording(): Promise<RecordingFile | null> {
		this.recordingClosed = true;
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
