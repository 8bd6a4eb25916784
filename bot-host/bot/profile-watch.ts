/**
 * The disk a bot's Chromium profile takes, and the bot stopped once it passes its limit
 * (BOT_PROFILE_DISK_MB). Pages the bot shows write there: the meeting page a little, shared
 * screen content (surface.ts) as much as its storage quota lets it. The quota is the first
 * bound; this is the one a page cannot get round (many origins, storage without a quota such as
 * localStorage, caches): a profile past its limit ends the bot, so one bot never spends the
 * disk the host promised the others (fleet/capacity.ts counts each profile at this limit).
 */
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";

const MB = 1024 * 1024;
/**
 * How often the profile is measured: a page that writes as fast as Chromium lets it passes the
 * limit by what it writes in that time. A measurement of a fresh profile (about 200 files) costs
 * about 3 ms of CPU, so 0.2 % of a core per bot.
 */
export const PROFILE_WATCH_MS = 2_000;

/**
 * Bytes the files under `dir` take on disk (allocated blocks, so sparse files count as they are).
 * A file or directory gone between listing and stat counts nothing, and the walk goes on: Chromium
 * removes files while it runs, and a page that churns databases must not blind the watch.
 * Asynchronous, so a profile of many files never holds up the host's other bots.
 */
export async function diskUsage(dir: string): Promise<number> {
	const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
	const sizes = await Promise.all(
		entries.map(async (entry) => {
			const file = path.join(dir, entry.name);
			const stat = await lstat(file).catch(() => null);
			if (!stat) return 0;
			return stat.blocks * 512 + (stat.isDirectory() ? await diskUsage(file) : 0);
		}),
	);
	return sizes.reduce((sum, size) => sum + size, 0);
}

export interface ProfileWatchOptions {
	dir: string;
	limitBytes: number;
	/** Called once, when a measurement passes the limit. */
	onExceeded: (usedBytes: number) => void;
	everyMs?: number;
}

export class ProfileWatch {
	private used = 0;
	private timer: NodeJS.Timeout | null = null;
	private exceeded = false;
	private measuring = false;
	private readonly options: ProfileWatchOptions;

	constructor(options: ProfileWatchOptions) {
		this.options = options;
	}

	/** Disk the profile may still take before the bot is stopped. */
	get roomLeft(): number {
		return Math.max(0, this.options.limitBytes - this.used);
	}

	start(): void {
		this.timer ??= setInterval(() => void this.measure(), this.options.everyMs ?? PROFILE_WATCH_MS);
		this.timer.unref();
		void this.measure();
	}

	stop(): void {
		if (this.timer) clearInterval(this.timer);
		this.timer = null;
	}

	/** Measures now; a measurement still running (a large profile on a slow disk) is not doubled. */
	async measure(): Promise<number> {
		if (this.measuring) return this.used;
		this.measuring = true;
		this.used = await diskUsage(this.options.dir);
		this.measuring = false;
		if (!this.exceeded && this.used > this.options.limitBytes) {
			this.exceeded = true;
			this.stop();
			this.options.onExceeded(this.used);
		}
		return this.used;
	}
}

/** The failure's words: what passed which limit, and what wrote it (the user can act on the last part). */
export function profileLimitReason(usedBytes: number, limitBytes: number): string {
	return `the bot's browser profile passed its disk limit: ${Math.round(usedBytes / MB)} MB of ${Math.round(limitBytes / MB)} MB (BOT_PROFILE_DISK_MB); a page it showed, most likely shared screen content, stored too much`;
}
