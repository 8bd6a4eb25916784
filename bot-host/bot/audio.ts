/**
 * The meeting's audio as the bot hears it (captured in the page, 16 kHz mono): kept for the
 * WAV recording when recording is on, and fed to the transcriber when an endpoint is set.
 * Also remembers who the platform showed as speaking, to attribute transcribed speech.
 */
import type { BotSegment } from "../../src/bot-channel/protocol.ts";
import { SAMPLE_RATE, type Transcriber } from "./transcriber.ts";
import { encodeWav } from "./wav.ts";

export class MeetingAudio {
	private readonly chunks: Buffer[] = [];
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
		if (this.recording) this.chunks.push(pcm);
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

	get seconds(): number {
		return this.capturedBytes / 2 / SAMPLE_RATE;
	}

	/** The recording as a WAV file, or null when recording is off or nothing was heard. */
	recordingWav(): Buffer | null {
		if (!this.recording || this.chunks.length === 0) return null;
		return encodeWav(Buffer.concat(this.chunks), SAMPLE_RATE);
	}
}

/** PUT the finished recording (WAV body) with the channel token. */
export async function uploadRecording(url: string, token: string, wav: Buffer): Promise<void> {
	const res = await fetch(url, {
		method: "PUT",
		headers: { "content-type": "audio/wav", authorization: `Bearer ${token}`, "x-sample-rate": String(SAMPLE_RATE) },
		body: new Uint8Array(wav),
		signal: AbortSignal.timeout(120_000),
	});
	if (!res.ok) throw new Error(`recording upload answered ${res.status}`);
}
