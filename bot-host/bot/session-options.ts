/** What a bot session is started with (session.ts): the spawn request, its browser and egress, and the host's limits and test pacing. */
import type { SpawnRequest } from "../../src/bot-channel/protocol.ts";
import type { BrowserOptions } from "./browser.ts";
import type { CaptionWatchLimits } from "./caption-watch.ts";
import type { HostEgress } from "./egress.ts";

export interface SessionOptions {
	request: SpawnRequest;
	browser: BrowserOptions;
	/** What the bot may fetch and render for users (URL guard policy and byte caps). */
	egress: HostEgress;
	now?: () => number;
	pollMs?: number;
	captionSettleMs?: number;
	/** How long the pre-join and join may take before it is a join failure (not counted while the bot asks for help). */
	joinTimeoutMs?: number;
	/** How long an unrecognised screen may last before the bot asks for help (BOT_HELP_GRACE_S). */
	helpGraceMs?: number;
	/** How often a page that says the host has not started is re-opened; default the driver's (Zoom: 15 s). */
	hostRecheckMs?: number;
	/** The host's cap on a recording file (BOT_RECORDING_MAX_BYTES); the spawn's `recording_max_bytes` may lower it. */
	recordingMaxBytes?: number;
	/** The disk the bot's Chromium profile may take (BOT_PROFILE_DISK_MB); past it the bot fails (profile-watch.ts). Default: no limit. */
	profileDiskBytes?: number;
	/** How often the profile is measured (profile-watch.ts PROFILE_WATCH_MS). */
	profileWatchMs?: number;
	/** When people heard without captions read is a help request (caption-watch.ts; CAPTION_WATCH_DEFAULTS). */
	captionWatch?: Partial<CaptionWatchLimits>;
	log?: (line: string) => void;
	/** Each step of the bot's way in, as its step log keeps it (the canary prints them). */
	onStep?: (words: string) => void;
}
