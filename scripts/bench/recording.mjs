// `npm run bench -- recording`: what recording costs a bot host. RECORDING_BOTS (default 4) real
// bots at once on one host, each in its own sandbox meeting with two participants speaking
// captioned lines (the density bench's step), first with recording off, then recording 720p video
// (with its Opus audio file). Per bot: CPU (% of one core, the recorder's ffmpeg apart), PSS,
// caption shown → segment at a /ws subscriber (p50, p95), lines lost; and, from the stored
// recordings, bytes per minute of audio and of video. Goal: 4 bots recording 720p with caption →
// /ws p95 < 500 ms and no line lost; audio at most 1 MB a minute.

import { sleep } from "./bots.mjs";
import { densityStep } from "./density.mjs";

const MODES = [
	["off", {}],
	["video 720p", { recording_enabled: true, recording_config: { video: true, resolution: "720p" } }],
];

export function recordingBotCount() {
	const n = Number(process.env.RECORDING_BOTS || 4);
	if (!Number.isSafeInteger(n) || n < 1 || n > 20) throw new Error(`RECORDING_BOTS must be 1 to 20, not ${process.env.RECORDING_BOTS}`);
	return n;
}

/** The stored recordings of the step's meetings, once their bots completed them (or 3 minutes passed). */
async function recordedFiles(base, key, meetingIds) {
	const deadline = Date.now() + 180_000;
	for (;;) {
		const lists = await Promise.all(
			meetingIds.map(async (id) => {
				const res = await fetch(`${base}/recordings?meeting_id=${id}`, { headers: { "X-API-Key": key } });
				return res.ok ? (await res.json()).recordings : [];
			}),
		);
		const done = lists.every((l) => l.length > 0 && l.every((r) => r.status !== "in_progress"));
		if (done || Date.now() > deadline) return lists.flat().flatMap((r) => r.media_files);
		await sleep(2000);
	}
}

/** Bytes per minute of one kind of file, over every file of it: total bytes over total minutes. */
function bytesPerMinute(files, type) {
	const of = files.filter((f) => f.type === type && f.duration_seconds > 0);
	const minutes = of.reduce((n, f) => n + f.duration_seconds / 60, 0);
	if (minutes === 0) return null;
	return { files: of.length, mb_per_minute: Math.round((of.reduce((n, f) => n + f.file_size_bytes, 0) / minutes / 1e6) * 100) / 100 };
}

export async function benchRecording(ctx) {
	const n = recordingBotCount();
	console.log(`\n## Recording: ${n} real bots on one host, recording off and then 720p video (sandbox meetings)`);
	const steps = [];
	for (const [name, botOptions] of MODES) {
		const step = await densityStep(ctx, n, "headed", { botOptions });
		const files = botOptions.recording_enabled ? await recordedFiles(ctx.botBase, ctx.key, step.meeting_ids) : [];
		const figures = { recording: name, ...step, audio: bytesPerMinute(files, "audio"), video: bytesPerMinute(files, "video") };
		steps.push(figures);
		const { caption_to_ws_ms: lag, caption_lines: lines } = figures;
		console.log(
			`${n} bots, recording ${name}: CPU ${figures.cpu_per_bot_pct}% of a core per bot (ffmpeg ${figures.cpu_encoder_per_bot_pct}%, Xvfb ${figures.cpu_display_per_bot_pct}%)   ` +
				`PSS ${figures.pss_per_bot_mb} MB per bot (ffmpeg ${figures.pss_encoder_per_bot_mb} MB)   caption → /ws p50 ${lag.p50 ?? "-"} ms p95 ${lag.p95 ?? "-"} ms (${lag.samples})   ` +
				`lines lost ${lines.lost} of ${lines.shown}` +
				(figures.audio ? `   audio ${figures.audio.mb_per_minute} MB/min (${figures.audio.files} files)` : "") +
				(figures.video ? `   video ${figures.video.mb_per_minute} MB/min (${figures.video.files} files)` : ""),
		);
	}
	console.log(JSON.stringify({ recording: steps }, null, 2));
	return steps;
}
