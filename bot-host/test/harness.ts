/**
 * Shared set-up for the bot-host tests: one sandbox, one fake room and one bot host per
 * test file (`useWorld`), real headed Chromium (each bot on a display of its own), and helpers to launch a bot into a sandbox meeting
 * through the host's in-process launch (what the pull loop calls after a won claim).
 */
import { afterAll, beforeAll } from "vitest";
import type { z } from "zod";
import { type Platform, SpawnRequest } from "../../src/bot-channel/protocol.ts";
import type { BrowserOptions } from "../bot/browser.ts";
import type { CaptionWatchLimits } from "../bot/caption-watch.ts";
import { chromiumSandbox } from "../bot/chromium-sandbox.ts";
import type { HostEgress } from "../bot/egress.ts";
import type { BotSession } from "../bot/session.ts";
import type { Scenario } from "../sandbox/scenario.ts";
import { type Sandbox, startSandbox } from "../sandbox/server.ts";
import { type BotHost, startBotHost } from "../service.ts";
import { type Providers, startProviders } from "./providers.ts";
import { FakeRoom } from "./room.ts";

export const CHANNEL_TOKEN = "channel-token-for-tests";

export interface World {
	sandbox: Sandbox;
	room: FakeRoom;
	host: BotHost;
	hostUrl: string;
	/** The browser options the host was started with. */
	browser: BrowserOptions;
	logs: string[];
}

/** Local providers live on loopback, so the default world allows private targets. */
const LOCAL_EGRESS: HostEgress = { policy: { allowPrivate: true }, maxBytes: 8 * 1024 * 1024, maxVideoBytes: 50 * 1024 * 1024 };

/**
 * A machine with room for the world's bots, so capacity is the slots' alone (tests share a busy
 * machine, whose real pressure would decide otherwise). The bots' CPU is still measured in the
 * real /proc; 16 cores leave it room for every slot.
 */
export const ROOMY_MACHINE = {
	memAvailableMb: () => 16_000,
	load1: () => 0,
	cores: () => 16,
	diskFreeMb: () => 64_000,
	cpuPressure: () => 0,
	memPressure: () => 0,
};

/** How a test file's world differs from the default one. */
export interface WorldOptions {
	egress?: HostEgress;
	slots?: number;
	joinTimeoutMs?: number;
	recordingMaxBytes?: number;
	helpGraceMs?: number;
	captionWatch?: Partial<CaptionWatchLimits>;
	/** Bots launched the way they were before issue 31 (bot/browser.ts `formerHeadless`), to show what that meets. */
	formerHeadless?: boolean;
	/** How often a page that says the host has not started is re-opened (the driver's own by default: Zoom 15 s). */
	hostRecheckMs?: number;
	/** Each bot's profile limit (BOT_PROFILE_DISK_MB) and how often it is measured. */
	profileDiskMb?: number;
	profileWatchMs?: number;
}

export async function startWorld(options: WorldOptions = {}): Promise<World> {
	const sandbox = await startSandbox();
	const room = await FakeRoom.start(CHANNEL_TOKEN);
	const logs: string[] = [];
	// The host's own sandbox decision, as in production: off as root (this machine, CI), on where the kernel allows.
	const browser: BrowserOptions = {
		executablePath: "/usr/bin/chromium",
		extraFlags: sandbox.chromiumFlags,
		fakeDevices: true,
		sandbox: chromiumSandbox("/usr/bin/chromium", process.env.BOT_CHROMIUM_SANDBOX, (line) => logs.push(line)).sandbox,
		...(options.formerHeadless ? { formerHeadless: true } : {}),
	};
	const host = await startBotHost({
		port: 0,
		browser,
		// A grace well above a busy machine's page loads, so only a real unknown screen asks for help.
		session: {
			pollMs: 100,
			captionSettleMs: 900,
			joinTimeoutMs: options.joinTimeoutMs ?? 30_000,
			helpGraceMs: options.helpGraceMs ?? 5_000,
			...(options.captionWatch ? { captionWatch: options.captionWatch } : {}),
			...(options.hostRecheckMs ? { hostRecheckMs: options.hostRecheckMs } : {}),
			...(options.profileWatchMs ? { profileWatchMs: options.profileWatchMs } : {}),
		},
		egress: options.egress ?? LOCAL_EGRESS,
		...(options.slots ? { slots: options.slots } : {}),
		...(options.recordingMaxBytes ? { recordingMaxBytes: options.recordingMaxBytes } : {}),
		capacity: { readers: ROOMY_MACHINE, ...(options.profileDiskMb ? { profileDiskMb: options.profileDiskMb } : {}) },
		log: (line) => logs.push(line),
	});
	return { sandbox, room, host, hostUrl: `http://127.0.0.1:${host.port}`, browser, logs };
}

export async function stopWorld(world: World): Promise<void> {
	await world.host.shutdown();
	await world.room.close();
	await world.sandbox.close();
}

/**
 * The world of the tests around it (a describe block, or the file): started before the first,
 * stopped after the last. The object is filled in when the world starts, so the tests and
 * helpers use it as the `World` it is.
 */
export function useWorld(options: WorldOptions = {}): World {
	const world = {} as World;
	beforeAll(async () => {
		Object.assign(world, await startWorld(options));
	});
	afterAll(async () => {
		// A world whose start failed has nothing to stop (its error is the one reported).
		if (world.host) await stopWorld(world);
	});
	return world;
}

/** The local providers (providers.ts) of the tests around it, started before the first and closed after the last, as `useWorld`. */
export function useProviders(): Providers {
	const providers = {} as Providers;
	beforeAll(async () => {
		Object.assign(providers, await startProviders());
	});
	afterAll(async () => {
		if (providers.close) await providers.close();
	});
	return providers;
}

let nextMeetingId = Math.floor(Math.random() * 1_000_000);

/** The link a user would paste, per platform, for a native meeting id. */
export function meetingLink(platform: Platform, nativeId: string, passcode?: string): string {
	if (platform === "google_meet") return `https://meet.google.com/${nativeId}`;
	if (platform === "zoom") return `https://us05web.zoom.us/j/${nativeId}${passcode ? `?pwd=${passcode}` : ""}`;
	return `https://teams.microsoft.com/meet/${nativeId}${passcode ? `?p=${passcode}` : ""}`;
}

export function nativeIdFor(platform: Platform, n: number): string {
	if (platform === "google_meet") {
		const letters = (k: number, len: number) =>
			Array.from({ length: len }, (_, i) => String.fromCharCode(97 + (((k >> (i * 2)) + i) % 26))).join("");
		return `${letters(n, 3)}-${letters(n + 7, 4)}-${letters(n + 13, 3)}`;
	}
	return String(8_000_000_000 + n);
}

export interface Spawned {
	meetingId: number;
	nativeId: string;
	botName: string;
	session: BotSession;
}

type SpawnOverrides = Partial<z.input<typeof SpawnRequest>> & {
	channelToken?: string;
	linkFor?: (nativeId: string) => string;
	/** Send the bot to an id the sandbox was never told about (the scenario is then not set). */
	unconfigured?: boolean;
};

/** Script a sandbox meeting and write the spawn request a room would hand the host that claims it. */
export function scriptMeeting(
	world: Pick<World, "sandbox" | "room">,
	platform: Platform,
	scenario: z.input<typeof Scenario>,
	overrides: SpawnOverrides = {},
): { meetingId: number; nativeId: string; botName: string; request: z.input<typeof SpawnRequest> } {
	const { channelToken, linkFor, unconfigured, ...spawnOverrides } = overrides;
	const meetingId = ++nextMeetingId;
	const nativeId = nativeIdFor(platform, meetingId);
	if (!unconfigured) world.sandbox.setScenario(nativeId, scenario);
	const botName = `Notetaker ${meetingId}`;
	const request: z.input<typeof SpawnRequest> = {
		meeting_id: meetingId,
		platform,
		native_meeting_id: nativeId,
		meeting_url: linkFor ? linkFor(nativeId) : meetingLink(platform, nativeId, scenario.passcode ?? undefined),
		passcode: scenario.passcode ?? null,
		bot_name: botName,
		transcription: null,
		channel: { url: world.room.url(meetingId), token: channelToken ?? CHANNEL_TOKEN },
		screenshot_upload_url: world.room.screenshotUrl(meetingId),
		...spawnOverrides,
	};
	return { meetingId, nativeId, botName, request };
}

/** Script a sandbox meeting and launch a bot into it, as the pull loop does after a won claim. */
export async function spawnBot(
	world: World,
	platform: Platform,
	scenario: z.input<typeof Scenario>,
	overrides: SpawnOverrides = {},
): Promise<Spawned> {
	const { meetingId, nativeId, botName, request } = scriptMeeting(world, platform, scenario, overrides);
	const session = world.host.launch(SpawnRequest.parse(request));
	return { meetingId, nativeId, botName, session };
}
