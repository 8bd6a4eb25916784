/**
 * What recording costs a bot host (`npm run bench -- recording`; alone: `node bot-host/bench/recording.ts`).
 * One bot at a time in a sandbox meeting where two people talk, recording nothing, audio only
 * (Opus) and 720p video (VP8 + Opus): per bot the CPU (percent of one core, from /proc) and RSS of
 * its processes (Chromium and its helpers, its Xvfb, its ffmpeg; RSS counts shared pages in each, PSS shares them out), and the bytes a minute of its
 * audio and video files as shipped in parts. Then BENCH_RECORDING_BOTS (default 4) bots recording
 * 720p at once: the same per bot, the machine's load, and their captions' way to the room (shown
 * in the meeting → segment on the bot channel, p50 and p95) with any line that never arrived.
 * Figures only: nothing here is asserted. BENCH_RECORDING_WINDOW_S (default 30) is each window.
 */
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { VIDEO_FRAME_RATE, VIDEO_RESOLUTIONS } from "../../src/bot-channel/protocol.ts";
import { startProviders } from "../test/providers.ts";
import { segmentsOf } from "../test/room.ts";
import { processTreeMemory } from "./bench.ts";
import { type Measured, startCpuWindow } from "./density.ts";
import { startBenchRig } from "./rig.ts";

type Mode = "none" | "audio" | "video_720p";
const WINDOW_S = Number(process.env.BENCH_RECORDING_WINDOW_S || 30);
const CONCURRENT = Number(process.env.BENCH_RECORDING_BOTS || 4);
const WARM_UP_MS = 5_000;

/** Two people taking turns for longer than a window: captions and a changing picture the whole time. */
const TALK = {
	direct_join: true,
	speech_gap_ms: 400,
	participants: ["Ann Smith", "Bo Jones"].map((name, p) => ({
		name,
		lines: Array.from(
			{ length: 40 },
			(_, i) =>
				`${name.split(" ")[0]} point ${i + 1}: the ${["budget", "roadmap", "hiring", "launch"][(i + p) % 4]} needs a decision this week.`,
		),
	})),
};

function commandLineHas(marker: string): number[] {
	return readdirSync("/proc")
		.filter((e) => /^\d+$/.test(e))
		.filter((e) => {
			try {
				return readFileSync(`/proc/${e}/cmdline`, "utf8").replaceAll("\0", " ").includes(marker);
			} catch {
				return false;
			}
		})
		.map(Number);
}

/** A bot's processes: its Chromium tree, its display (Xvfb names the authority file in the profile) and its encoder (ffmpeg names its files). */
function botProcesses(name: string, browserPid: number, recordingFiles: string[]): Measured[] {
	const cmdline = readFileSync(`/proc/${browserPid}/cmdline`, "utf8").split("\0");
	const profile = cmdline.find((a) => a.startsWith("--user-data-dir="))?.slice("--user-data-dir=".length) ?? "";
	const xvfb = commandLineHas(` -auth ${profile}/`).filter((pid) => readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "Xvfb");
	const encoder = recordingFiles[0]
		? commandLineHas(recordingFiles[0]).filter((pid) => readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "ffmpeg")
		: [];
	return [
		{ name: `${name}:chromium`, root: browserPid },
		...xvfb.map((root) => ({ name: `${name}:xvfb`, root })),
		...encoder.map((root) => ({ name: `${name}:ffmpeg`, root })),
	];
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const round = (n: number) => Math.round(n * 10) / 10;
function percentile(values: number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

export async function runRecordingBench(): Promise<void> {
	const rig = await startBenchRig({ slots: CONCURRENT + 1, botName: "Recording Bench", codePrefix: "rec" });
	const providers = await startProviders();
	const plan = (video: boolean) => ({ video, ...VIDEO_RESOLUTIONS["720p"], frame_rate: VIDEO_FRAME_RATE, audio_format: "opus" as const });
	let named = 0;
	const spawn = async (mode: Mode) => {
		const name = `bench-${++named}`;
		const extra =
			mode === "none"
				? {}
				: { recording_enabled: true, recording: plan(mode === "video_720p"), recording_parts_url: providers.partsUrl(name) };
		const bot = await rig.spawn(TALK, extra);
		return { ...bot, name, mode };
	};
	type Bot = Awaited<ReturnType<typeof spawn>>;
	/** CPU and RSS per bot over one window, the bots in the call throughout. */
	const measure = async (bots: Bot[]) => {
		await sleep(WARM_UP_MS);
		const groups = bots.flatMap((b, i) => {
			const session = rig.host.bots.get(b.meetingId);
			return session?.browserPid ? botProcesses(`bot${i + 1}`, session.browserPid, session.recordingFiles) : [];
		});
		const window = startCpuWindow(groups);
		await sleep(WINDOW_S * 1000);
		const cpu = window.end();
		return {
			machine: cpu.machine,
			perBot: bots.map((b, i) => {
				const own = groups.filter((g) => g.name.startsWith(`bot${i + 1}:`));
				const part = (what: string) => round(sum(own.filter((g) => g.name.endsWith(`:${what}`)).map((g) => cpu.percent[g.name] ?? 0)));
				return {
					mode: b.mode,
					cpu_pct: round(sum(own.map((g) => cpu.percent[g.name] ?? 0))),
					chromium_pct: part("chromium"),
					xvfb_pct: part("xvfb"),
					ffmpeg_pct: part("ffmpeg"),
					...(() => {
						const memory = own.map((g) => processTreeMemory(g.root));
						return { rss_mb: sum(memory.map((m) => m.rss)), pss_mb: sum(memory.map((m) => m.pss)) };
					})(),
				};
			}),
		};
	};
	/** Bytes a minute of each file the bot shipped, by the length its completion gave. */
	const bytesPerMinute = (bot: Bot) => {
		const files = providers.completions.find((c) => c.recording === bot.name)?.completion.files ?? [];
		return Object.fromEntries(
			files.map((f) => [f.type, Math.round(providers.joined(bot.name, f.type).length / (f.duration_seconds / 60))]),
		);
	};
	try {
		console.log(`recording bench: one bot per mode, then ${CONCURRENT} recording 720p at once; ${WINDOW_S} s windows`);
		for (const mode of ["none", "audio", "video_720p"] as Mode[]) {
			const bot = await spawn(mode);
			const { perBot, machine } = await measure([bot]);
			await rig.stop(bot.meetingId);
			console.log(
				JSON.stringify({
					...perBot[0],
					bytes_per_minute: bytesPerMinute(bot),
					machine_busy_pct: machine.busy_pct,
					others_core_pct: machine.others_core_pct,
				}),
			);
		}
		const bots = await Promise.all(Array.from({ length: CONCURRENT }, () => spawn("video_720p")));
		const { perBot, machine } = await measure(bots);
		// The lines each meeting showed whole, before the bots leave (leaving flushes what they still held).
		const spokenBy = bots.map((bot) => {
			const shown = rig.sandbox.observed(bot.code)?.captions_shown ?? [];
			return TALK.participants.flatMap((p) => p.lines).filter((line) => shown.some((c) => c.text === line));
		});
		await Promise.all(bots.map((b) => rig.stop(b.meetingId)));
		const latencies: number[] = [];
		let lines = 0;
		let lost = 0;
		bots.forEach((bot, b) => {
			const received = rig.room.received(bot.meetingId);
			const arrivals = rig.room.arrivedAt(bot.meetingId);
			for (const caption of rig.sandbox.observed(bot.code)?.captions_shown ?? []) {
				const i = received.findIndex(
					(m) => m.type === "segment" && m.segment.speaker === caption.speaker && m.segment.text === caption.text,
				);
				const arrived = arrivals[i];
				if (i >= 0 && arrived !== undefined) latencies.push(arrived - caption.at);
			}
			const completed = segmentsOf(received)
				.filter((s) => s.completed)
				.map((s) => s.text);
			const spoken = spokenBy[b] ?? [];
			lines += spoken.length;
			lost += spoken.filter((line) => !completed.some((text) => text.includes(line))).length;
		});
		console.log(
			JSON.stringify({
				concurrent_bots: CONCURRENT,
				per_bot: perBot.map((b, i) => ({ ...b, bytes_per_minute: bytesPerMinute(bots[i] as Bot) })),
				total_cpu_pct: round(sum(perBot.map((b) => b.cpu_pct))),
				machine,
				caption_to_room_ms: { samples: latencies.length, p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
				lines_spoken: lines,
				lines_without_segment: lost,
			}),
		);
	} finally {
		await providers.close();
		await rig.close();
	}
}

if (import.meta.filename === process.argv[1]) await runRecordingBench();
