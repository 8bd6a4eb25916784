/**
 * The bot host: runs bots (one Chromium each) for the meetings it has claimed. Work arrives
 * through the pull loop (fleet/pull-loop.ts), which calls `launch`; the host needs no inbound
 * connectivity, so its HTTP server answers only GET /health (readiness) and GET /metrics
 * (host-local figures, no meeting ids). A bot that fails or crashes reports on its own channel;
 * it never takes the host down. Draining (SIGTERM) stops new work and lets bots finish.
 */
import { rmdir } from "node:fs/promises";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import type { HostReport } from "../src/bot-channel/fleet.ts";
import type { SpawnRequest } from "../src/bot-channel/protocol.ts";
import { type BrowserOptions, browserMissing } from "./bot/browser.ts";
import { browserOwner } from "./bot/browser-owner.ts";
import { displayMissing } from "./bot/display.ts";
import { type HostEgress, hostEgressFromEnv } from "./bot/egress.ts";
import { osInputMissing } from "./bot/os-input.ts";
import { type Ending, hostDrained, leaving } from "./bot/outcomes.ts";
import { encoderMissing } from "./bot/recording/tools.ts";
import { findOnPath } from "./bot/search-path.ts";
import { BotSession } from "./bot/session.ts";
import type { SessionOptions } from "./bot/session-options.ts";
import { errorText } from "./error-text.ts";
import { BotCpuMeter } from "./fleet/bot-cpu.ts";
import { type Capacity, type CapacitySettings, capacityOf, DEFAULT_PROFILE_DISK_MB } from "./fleet/capacity.ts";
import { RefusalWatch } from "./fleet/refusal.ts";
import { reapStrayBrowsers } from "./stray-browsers.ts";

export interface BotHostOptions {
	port: number;
	/** Interface to listen on; loopback unless told otherwise (a container sets 0.0.0.0). */
	bind?: string;
	browser: BrowserOptions;
	/** URL guard and byte caps for what bots fetch for users; default: private targets refused. */
	egress?: HostEgress;
	/** Bots at once at most (BOT_HOST_SLOTS). */
	slots?: number;
	/**
	 * Per-bot memory and CPU budgets, reserve, profile disk, pressure limits, the proc root and
	 * machine readers (fleet/capacity.ts); how often the bots' CPU is read (fleet/bot-cpu.ts).
	 */
	capacity?: Omit<CapacitySettings, "slots" | "recordingMaxBytes"> & { cpuSampleMs?: number };
	/** The largest recording file of one bot (BOT_RECORDING_MAX_BYTES; default the Worker's RECORDING_MAX_BYTES). */
	recordingMaxBytes?: number;
	/** Named in reports. */
	hostId?: string;
	version?: string;
	/**
	 * Why this host cannot take work besides a missing browser (no queue, no credential, a
	 * sandbox required and not available): /health 503 names them. Asked at every check, so a
	 * credential file mounted later makes the host ready without a restart.
	 */
	blockers?: () => string[];
	/** What the host runs without, named on /health as `degraded` (Chromium without its sandbox). */
	warnings?: string[];
	/** Passed to each session (tests shorten the caption settle time). */
	session?: Pick<
		SessionOptions,
		"pollMs" | "captionSettleMs" | "joinTimeoutMs" | "helpGraceMs" | "captionWatch" | "hostRecheckMs" | "profileWatchMs"
	>;
	log?: (line: string) => void;
}

export const DEFAULT_SLOTS = 20;

/** Capacity as the host tells it: with since when it refuses work (ISO; null while it takes work). */
export type HostCapacity = Capacity & { refusing_since: string | null };

/**
 * What the host can do now. Without a browser or Xvfb to show it on (or a queue, a credential, a
 * required sandbox) no bot can start, so the host is unavailable (/health 503). Degraded: bots
 * run, but without something they should have: Chromium's sandbox (`warnings`), xdotool (clicks
 * and typing come from DevTools, which Google Meet may refuse), espeak-ng (bots cannot speak
 * text, and sandbox participants stay silent), or ffmpeg (recordings are WAV: no video, no Opus).
 */
export interface HostReadiness {
	status: "ok" | "degraded" | "unavailable";
	/** The first problem, fatal ones first; absent when ok. */
	detail?: string;
	problems: string[];
}

export function hostReadiness(
	browserPath: string,
	searchPath = process.env.PATH ?? "",
	blockers: string[] = [],
	warnings: string[] = [],
): HostReadiness {
	const browser = browserMissing(browserPath);
	const display = displayMissing(searchPath);
	const input = osInputMissing(searchPath);
	const speech = findOnPath("espeak-ng", searchPath)
		? null
		: "espeak-ng not found on PATH (install the Debian package espeak-ng): bots cannot speak text and sandbox participants are silent";
	const encoder = encoderMissing(searchPath);
	const fatal = [...(browser ? [browser] : []), ...(display ? [display] : []), ...blockers];
	const lacking = [...warnings, ...(input ? [input] : []), ...(speech ? [speech] : []), ...(encoder ? [encoder] : [])];
	const problems = [...fatal, ...lacking];
	const status = fatal.length > 0 ? "unavailable" : lacking.length > 0 ? "degraded" : "ok";
	return { status, ...(problems[0] ? { detail: problems[0] } : {}), problems };
}

export interface BotHost {
	port: number;
	/** Live bots by meeting id (the newest attempt's). */
	bots: Map<number, BotSession>;
	/** Starts a bot for a claimed attempt; it counts as launching until it is in the meeting's lobby or call. */
	launch(request: SpawnRequest): BotSession;
	capacity(): HostCapacity;
	readonly draining: boolean;
	/** What the host reports to the gateway (fleet/reporter.ts). */
	report(): HostReport;
	/**
	 * Stops taking work; bots run on until their meetings end or `graceMs` passes, then leave with
	 * `failure_cause: host_drained` (outcomes.ts hostDrained). Called again, they leave at once.
	 * Resolves when no bot is left.
	 */
	drain(graceMs: number): Promise<void>;
	/** Every bot leaves now with this reason, and the host stops listening. */
	shutdown(ending?: Ending): Promise<void>;
}

export async function startBotHost(options: BotHostOptions): Promise<BotHost> {
	const log = options.log ?? ((line: string) => console.log(line));
	const bots = new Map<number, BotSession>();
	/** Every session not yet finished, superseded attempts included: each holds a Chromium. */
	const sessions = new Set<BotSession>();
	const idleWaiters = new Set<() => void>();
	const egress = options.egress ?? hostEgressFromEnv({});
	const slots = options.slots ?? DEFAULT_SLOTS;
	let draining = false;
	let drainTimer: NodeJS.Timeout | null = null;
	let drained: Promise<void> | null = null;
	// Every browser is marked as this host's, and what a dead instance of it left goes first.
	const owner = options.browser.owner ?? browserOwner(options.hostId);
	const browser: BrowserOptions = { ...options.browser, owner };
	await reapStrayBrowsers(owner, log);

	const readiness = () => hostReadiness(options.browser.executablePath, undefined, options.blockers?.() ?? [], options.warnings);
	const { cpuSampleMs, ...capacitySettings } = options.capacity ?? {};
	const cpuMeter = new BotCpuMeter({ procDir: capacitySettings.procDir, sampleMs: cpuSampleMs });
	const refusal = new RefusalWatch(log);
	const capacity = (): HostCapacity => {
		const launching = [...sessions].filter((s) => s.currentStage === "joining");
		const running = [...sessions].filter((s) => s.currentStage !== "joining");
		const recordingBytesLeft = [...sessions].reduce((sum, s) => sum + s.recordingRoomLeft, 0);
		const profileBytesLeft = [...sessions].reduce((sum, s) => sum + s.profileRoomLeft, 0);
		const browserPids = running.flatMap((s) => (s.browserPid === undefined ? [] : [s.browserPid]));
		// A recording bot's ffmpeg is the host's child, not its browser's: counted with its bot all the same.
		const companions = new Map(running.flatMap((s) => (s.browserPid === undefined ? [] : [[s.browserPid, s.companionPids] as const])));
		const now = capacityOf(
			{ slots, ...capacitySettings, recordingMaxBytes: options.recordingMaxBytes },
			{
				running: running.length,
				launching: launching.length,
				draining,
				ready: readiness().status !== "unavailable",
				recordingBytesLeft,
				profileBytesLeft,
				botsCpu: cpuMeter.measure(browserPids, companions),
			},
		);
		return { ...now, refusing_since: refusal.observe(now) };
	};
	const leaveAll = (ending: Ending) => Promise.allSettled([...sessions].map((session) => session.stop(ending)));

	const handle = (req: IncomingMessage, res: ServerResponse): void => {
		const url = new URL(req.url ?? "/", "http://bot-host");
		if (req.method !== "GET" && req.method !== "HEAD") refuse(res, 405, "method not allowed");
		else if (url.pathname === "/health") {
			// 503 while draining, so a readiness probe takes the host out of rotation. A host that is
			// only busy (full, under pressure) is still ready: 200, and the body says it takes no work and why.
			const now = capacity();
			const refusal = { limited_by: now.limited_by, refusing: now.refusing, refusing_since: now.refusing_since };
			if (draining) json(res, 503, { status: "draining", problems: [], bots: sessions.size, free: 0, ...refusal });
			else {
				const ready = withDiskShortage(readiness(), now);
				json(res, ready.status === "unavailable" ? 503 : 200, { ...ready, bots: sessions.size, free: now.free, ...refusal });
			}
		}
		// Host-local figures only: meeting ids stay out of an unauthenticated answer.
		else if (url.pathname === "/metrics")
			json(res, 200, { host_id: options.hostId ?? null, version: options.version ?? null, ...capacity() });
		else refuse(res, 404, "not found");
	};

	const server = http.createServer((req, res) => {
		try {
			handle(req, res);
		} catch (err) {
			log(`bot host request failed: ${errorText(err)}`);
			if (!res.headersSent) refuse(res, 500, "internal error");
		}
	});
	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(options.port, options.bind ?? "127.0.0.1", () => resolve());
	});
	const address = server.address();
	const closeServer = () => new Promise<void>((resolve) => server.close(() => resolve()));

	return {
		port: typeof address === "object" && address ? address.port : options.port,
		bots,
		launch(request) {
			const current = bots.get(request.meeting_id);
			if (current && current.request.attempt >= request.attempt)
				throw new Error(`a bot is already running for meeting ${request.meeting_id} (attempt ${current.request.attempt})`);
			const session = new BotSession({
				request,
				browser,
				egress,
				log,
				recordingMaxBytes: options.recordingMaxBytes,
				profileDiskBytes: (capacitySettings.profileDiskMb ?? DEFAULT_PROFILE_DISK_MB) * 1024 * 1024,
				...options.session,
			});
			bots.set(request.meeting_id, session);
			sessions.add(session);
			session.finished.finally(() => {
				sessions.delete(session);
				if (bots.get(request.meeting_id) === session) bots.delete(request.meeting_id);
				if (sessions.size === 0) for (const waiter of [...idleWaiters]) waiter();
			});
			session.start();
			log(`bot for meeting ${request.meeting_id} attempt ${request.attempt} (${request.platform}) launched`);
			return session;
		},
		capacity,
		get draining() {
			return draining;
		},
		report() {
			const now = capacity();
			return {
				host_id: options.hostId ?? "unnamed",
				version: options.version ?? "unknown",
				slots: now.slots,
				running: now.running,
				launching: now.launching,
				free: now.free,
				draining: now.draining,
				mem_available_mb: now.mem_available_mb,
				load1: now.load1,
				limited_by: now.limited_by,
				refusing: now.refusing,
				// Absent, not null, where the kernel has no PSI.
				...(now.cpu_pressure === null ? {} : { cpu_pressure: now.cpu_pressure }),
				...(now.mem_pressure === null ? {} : { mem_pressure: now.mem_pressure }),
			};
		},
		drain(graceMs) {
			if (drained) {
				if (drainTimer) clearTimeout(drainTimer);
				log(`bot host: told again to stop; ${sessions.size} bot(s) leave now`);
				void leaveAll(hostDrained("the bot host was stopped before the meeting ended"));
				return drained;
			}
			draining = true;
			log(`bot host: draining; ${sessions.size} bot(s) stay until their meetings end or ${Math.round(graceMs / 1000)} s pass`);
			drainTimer = setTimeout(() => {
				log(`bot host: drain grace over; ${sessions.size} bot(s) leave`);
				void leaveAll(hostDrained(`the bot host shut down: its drain grace of ${Math.round(graceMs / 1000)} s ran out`));
			}, graceMs);
			drainTimer.unref();
			drained = new Promise<void>((resolve) => {
				const done = () => {
					idleWaiters.delete(done);
					if (drainTimer) clearTimeout(drainTimer);
					resolve();
				};
				if (sessions.size === 0) done();
				else idleWaiters.add(done);
			});
			return drained;
		},
		async shutdown(ending = leaving("stopped", "asked to leave (the bot host is shutting down)")) {
			draining = true;
			if (drainTimer) clearTimeout(drainTimer);
			await leaveAll(ending);
			await closeServer();
			// Emptied by the bots' ends; another host of this process may still be using it.
			await rmdir(owner.dir).catch(() => {});
		},
	};
}

/** A host short of disk for one more bot runs the bots it has but takes no work: degraded, saying so. */
function withDiskShortage(ready: HostReadiness, now: Capacity): HostReadiness {
	if (!now.limited_by.includes("disk")) return ready;
	const shortage = `not enough free disk for another bot: ${now.disk_free_mb} MB free in ${tmpdir()}, ${now.disk_needed_mb} MB needed (what running bots' recordings and browser profiles may still take, one more bot's recording at its cap and profile at its limit, and the reserve kept free); no work is taken until there is`;
	const problems = [...ready.problems, shortage];
	return { status: ready.status === "unavailable" ? "unavailable" : "degraded", detail: problems[0], problems };
}

function json(res: ServerResponse, status: number, body: unknown): void {
	res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function refuse(res: ServerResponse, status: number, detail: string): void {
	json(res, status, { detail });
}
