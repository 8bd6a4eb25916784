/**
 * Shared set-up for the bot-host tests: one sandbox, one fake room and one bot host per
 * test file, real headless Chromium, and helpers to spawn a bot into a sandbox meeting.
 */
import type { z } from "zod";
import type { Platform, SpawnRequest } from "../../src/bot-channel/protocol.ts";
import type { BrowserOptions } from "../bot/browser.ts";
import { chromiumSandbox } from "../bot/chromium-sandbox.ts";
import type { HostEgress } from "../bot/egress.ts";
import type { Scenario } from "../sandbox/scenario.ts";
import { type Sandbox, startSandbox } from "../sandbox/server.ts";
import { type BotHost, startBotHost } from "../service.ts";
import { FakeRoom } from "./room.ts";

export const SECRET = "test-bot-host-secret";
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

export async function startWorld(options: { egress?: HostEgress; maxBots?: number } = {}): Promise<World> {
	const sandbox = await startSandbox();
	const room = await FakeRoom.start(CHANNEL_TOKEN);
	const logs: string[] = [];
	// The host's own sandbox decision, as in production: off as root (this machine, CI), on where the kernel allows.
	const browser: BrowserOptions = {
		executablePath: "/usr/bin/chromium",
		extraFlags: sandbox.chromiumFlags,
		fakeDevices: true,
		sandbox: chromiumSandbox("/usr/bin/chromium", process.env.BOT_CHROMIUM_SANDBOX, (line) => logs.push(line)),
	};
	const host = await startBotHost({
		port: 0,
		secret: SECRET,
		browser,
		session: { pollMs: 100, captionSettleMs: 900, joinTimeoutMs: 30_000 },
		egress: options.egress ?? LOCAL_EGRESS,
		...(options.maxBots ? { maxBots: options.maxBots } : {}),
		log: (line) => logs.push(line),
	});
	return { sandbox, room, host, hostUrl: `http://127.0.0.1:${host.port}`, browser, logs };
}

export async function stopWorld(world: World): Promise<void> {
	await world.host.shutdown();
	await world.room.close();
	await world.sandbox.close();
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
	response: Response;
}

/** Script a sandbox meeting and send a bot into it through POST /bots. */
export async function spawnBot(
	world: World,
	platform: Platform,
	scenario: z.input<typeof Scenario>,
	overrides: Partial<z.input<typeof SpawnRequest>> & {
		channelToken?: string;
		linkFor?: (nativeId: string) => string;
		/** Send the bot to an id the sandbox was never told about (the scenario is then not set). */
		unconfigured?: boolean;
		/** Another bot host than the world's. */
		hostUrl?: string;
	} = {},
): Promise<Spawned> {
	const { channelToken, linkFor, unconfigured, hostUrl, ...spawnOverrides } = overrides;
	const meetingId = ++nextMeetingId;
	const nativeId = nativeIdFor(platform, meetingId);
	if (!unconfigured) world.sandbox.setScenario(nativeId, scenario);
	const botName = `Notetaker ${meetingId}`;
	const body: z.input<typeof SpawnRequest> = {
		meeting_id: meetingId,
		platform,
		native_meeting_id: nativeId,
		meeting_url: linkFor ? linkFor(nativeId) : meetingLink(platform, nativeId, scenario.passcode ?? undefined),
		passcode: scenario.passcode ?? null,
		bot_name: botName,
		transcription: null,
		channel: { url: world.room.url(meetingId), token: channelToken ?? CHANNEL_TOKEN },
		...spawnOverrides,
	};
	const response = await fetch(`${hostUrl ?? world.hostUrl}/bots`, {
		method: "POST",
		headers: { "content-type": "application/json", authorization: `Bearer ${SECRET}` },
		body: JSON.stringify(body),
	});
	return { meetingId, nativeId, botName, response };
}
