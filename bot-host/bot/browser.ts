/**
 * One Chromium per bot, headed on a virtual display of its own (display.ts), with the switches
 * that tell a page it is automated removed, as every maintained peer runs it; flags for meeting
 * audio with nobody at the machine; a profile removed afterwards.
 */
import { accessSync, constants, statSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import puppeteer, { type Browser, type LaunchOptions } from "puppeteer-core";
import { type BrowserOwner, browserOwner, withParentDeath } from "./browser-owner.ts";
import { sandboxFlags } from "./chromium-sandbox.ts";
import { startVirtualDisplay, type VirtualDisplay } from "./display.ts";
import { bindCharacters } from "./x11-keymap.ts";

export interface BrowserOptions {
	executablePath: string;
	/** Extra flags, e.g. the sandbox host mapping and its SPKI trust. */
	extraFlags: string[];
	/** Fake camera/microphone devices (CI and sandbox); the virtual mic override replaces the mic. */
	fakeDevices: boolean;
	/** Chromium's own sandbox, decided once per host (chromium-sandbox.ts). */
	sandbox: boolean;
	/** The host the browser belongs to and dies with (browser-owner.ts); the bot host sets it, others get an unnamed one. */
	owner?: BrowserOwner;
	/**
	 * The launch bots had before issue 31: headless, with puppeteer's `--enable-automation`, and
	 * DevTools input. Only for comparing against: the density bench's old figure (BENCH_BROWSER=headless)
	 * and the test that shows the sandbox's Meet refusing it. Nothing an operator sets reads it.
	 */
	formerHeadless?: boolean;
}

/**
 * The bot's screen, and its window filling it at 0,0: the page gets the 1280-pixel width it had
 * headless, below Chromium's tab strip and toolbar.
 */
export const BOT_SCREEN = { width: 1280, height: 900 };
/** The language the platforms' pages are read in (drivers match English texts): the UI, navigator.languages and Accept-Language. */
const LANGUAGES = ["en-US", "en"];

/**
 * Why no bot can start with this Chromium, in words an operator can act on, or null when the
 * binary is there and executable. Checked on every health check and spawn, not once: a host
 * started before the package was installed becomes ready without a restart.
 */
export function browserMissing(executablePath: string): string | null {
	const fix = "install the Debian package chromium, or set CHROMIUM_PATH to a Chromium binary";
	try {
		if (!statSync(executablePath).isFile()) return `Chromium at ${executablePath} is not a file (${fix})`;
		accessSync(executablePath, constants.X_OK);
		return null;
	} catch (err) {
		const code = (err as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") return `Chromium not found at ${executablePath} (${fix})`;
		return `Chromium at ${executablePath} cannot be run (${code ?? "error"}; ${fix})`;
	}
}

export interface BotBrowser {
	browser: Browser;
	profileDir: string;
	/** The bot's screen; null only for `formerHeadless`. */
	display: VirtualDisplay | null;
	close(): Promise<void>;
}

/**
 * Starts the bot's screen, then its Chromium on it. `typing`: what the bot will type (its name),
 * whose characters get keys of their own before Chromium reads the keyboard (x11-keymap.ts).
 * `screen`: larger than BOT_SCREEN when the bot records video larger than its page (recording/plan.ts).
 */
export async function launchBotBrowser(label: string, options: BrowserOptions, typing = "", screen = BOT_SCREEN): Promise<BotBrowser> {
	// Chromium keeps only one --disable-features switch, so the extra ones are merged into ours.
	const disabledFeatures = [
		"AudioServiceOutOfProcess",
		"Translate",
		"OptimizationHints",
		"MediaRouter",
		"BackForwardCache",
		// One renderer for the meeting and its frames: per-site isolation costs a process each.
		"IsolateOrigins",
		"site-per-process",
	];
	const extraFlags = options.extraFlags.filter((flag) => {
		if (!flag.startsWith("--disable-features=")) return true;
		disabledFeatures.push(...flag.slice("--disable-features=".length).split(",").filter(Boolean));
		return false;
	});
	// Under the host's own directory, so a later start of the host knows it for its own (stray-browsers.ts).
	const owner = options.owner ?? browserOwner();
	await mkdir(owner.dir, { recursive: true });
	const profileDir = await mkdtemp(path.join(owner.dir, `bot-profile-${label.replace(/[^\w-]/g, "_")}-`));
	// No speculative connections: preconnects are not seen by request interception, so shared
	// content could otherwise open TCP connections to addresses the egress guard refuses.
	await mkdir(path.join(profileDir, "Default"));
	// The Accept-Language a person's browser set to English sends (Chromium reads it from the profile).
	await writeFile(
		path.join(profileDir, "Default", "Preferences"),
		JSON.stringify({ net: { network_prediction_options: 2 }, intl: { accept_languages: LANGUAGES.join(",") } }),
	);
	const headed = !options.formerHeadless;
	let display: VirtualDisplay | null = null;
	const args = [
		...sandboxFlags(options.sandbox),
		"--disable-gpu",
		"--disable-quic",
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-dev-shm-usage",
		// Meetings must play and capture audio with nobody clicking anything.
		"--autoplay-policy=no-user-gesture-required",
		"--use-fake-ui-for-media-stream",
		// Timers in a background tab get throttled, which would delay caption reading.
		"--disable-background-timer-throttling",
		"--disable-renderer-backgrounding",
		"--disable-backgrounding-occluded-windows",
		// Fewer helper processes per bot: memory is the limit on how many bots a VM holds.
		"--in-process-gpu",
		"--disable-extensions",
		`--disable-features=${disabledFeatures.join(",")}`,
		"--renderer-process-limit=2",
		"--disable-site-isolation-trials",
		// The HTTP cache within the profile's disk limit (profile-watch.ts): Chromium's own size follows the free disk.
		`--disk-cache-size=${32 * 1024 * 1024}`,
		// A meeting page needs little heap; V8's default lets it grow to gigabytes before collecting.
		"--js-flags=--max-old-space-size=192",
		`--lang=${LANGUAGES[0]}`,
		`--user-data-dir=${profileDir}`,
		...(options.fakeDevices ? ["--use-fake-device-for-media-stream"] : []),
		...(headed
			? [
					// navigator.webdriver stays false (puppeteer's --enable-automation is left out: browser-owner.ts).
					"--disable-blink-features=AutomationControlled",
					"--window-position=0,0",
					`--window-size=${screen.width},${screen.height}`,
					// A server has no speakers: the meeting's audio is taken from its streams (page-media.js), never played out.
					"--mute-audio",
				]
			: ["--window-size=1280,800"]),
		...extraFlags,
	];
	try {
		if (headed) {
			display = await startVirtualDisplay({ dir: profileDir, ...screen });
			if (typing) await bindCharacters(display, typing);
		}
		const launch: LaunchOptions = {
			executablePath: options.executablePath,
			headless: !headed,
			args,
			// Headed, the page is as large as the window leaves it: no emulated size a page could tell from the window's.
			defaultViewport: headed ? null : { width: 1280, height: 800 },
			...(display ? { env: { ...process.env, ...display.env } } : {}),
			// We handle signals ourselves so a shutdown can leave meetings first.
			handleSIGINT: false,
			handleSIGTERM: false,
			handleSIGHUP: false,
		};
		// A child that the kernel kills with the host, however the host ends.
		const browser = await puppeteer.launch(withParentDeath(launch, { automation: !headed }));
		const shown = display;
		return {
			browser,
			profileDir,
			display,
			async close() {
				await browser.close().catch(() => browser.process()?.kill("SIGKILL"));
				await shown?.close();
				await rm(profileDir, { recursive: true, force: true });
			},
		};
	} catch (err) {
		await display?.close();
		await rm(profileDir, { recursive: true, force: true });
		throw err;
	}
}
