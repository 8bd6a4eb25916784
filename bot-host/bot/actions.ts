/**
 * Interactive acts in the call: speech through the virtual microphone (unmuted only while
 * speaking), an avatar on the virtual camera (a canvas stream), and screen content presented
 * as the platform's own screen share from the virtual screen (a second canvas), or on the
 * camera where the platform does not let the bot share. Each act reports its events on the
 * channel; none of them blocks the caption reader.
 */
import type { Browser, Page } from "puppeteer-core";
import type { Act, ScreenEventPayload } from "../../src/bot-channel/protocol.ts";
import type { PresentedAs } from "../../src/platforms/share-facts.ts";
import type { AudioCapture, MeetingDriver } from "../drivers/types.ts";
import { errorText } from "../error-text.ts";
import type { Outgoing } from "./channel.ts";
import { fetchGuarded, type HostEgress } from "./egress.ts";
import { openSurface } from "./surface.ts";
import { espeakVoice, espeakWav } from "./tts.ts";

type EventName = Extract<Outgoing, { type: "event" }>["name"];
/** The page's two video canvases: the camera (avatar, or content where sharing is not possible) and the screen. */
type Feed = "camera" | "screen";
type Fit = "cover" | "contain";

interface BotPageApi {
	startCapture(options?: AudioCapture | null): void;
	/** Measure the meeting's audio level, reported through `__botHeard` (meeting-page.ts). */
	startLevels(): void;
	speak(base64: string): Promise<"completed" | "interrupted">;
	stopSpeaking(): boolean;
	show(kind: "image" | "video", url: string | null, fit?: Fit, feed?: Feed): Promise<boolean>;
}

declare global {
	interface Window {
		__bot: BotPageApi;
	}
}

export class InCallActions {
	private readonly page: Page;
	private readonly browser: Browser;
	private readonly driver: MeetingDriver;
	private readonly emit: (name: EventName, payload: Record<string, unknown>) => void;
	private readonly egress: HostEgress;
	private readonly log: (line: string) => void;
	private speechId = 0;
	/** The last speech a stop was asked for, so a stop before playback starts still counts. */
	private stoppedSpeech = 0;
	private avatar: string | null = null;
	private screen: { kind: ScreenEventPayload["content_type"]; presentedAs: PresentedAs; stop: () => Promise<void> } | null = null;
	/** Content loaded with `start: false`: ready to be presented at the next `screen_start`. */
	private loaded: ReadyScreen | null = null;
	/** The camera act running now; the next one starts after it. */
	private cameraTurn: Promise<void> = Promise.resolve();

	constructor(o: {
		page: Page;
		browser: Browser;
		driver: MeetingDriver;
		emit: (name: EventName, payload: Record<string, unknown>) => void;
		egress: HostEgress;
		log: (line: string) => void;
	}) {
		this.page = o.page;
		this.browser = o.browser;
		this.driver = o.driver;
		this.emit = o.emit;
		this.egress = o.egress;
		this.log = o.log;
	}

	/**
	 * Runs an act. Speech runs at once (a stop must reach the speech it stops); what goes on the
	 * camera runs in arrival order, so content loaded with start_share false is loaded before the
	 * start that shows it, and a stop never overtakes the show it ends.
	 */
	run(act: Act): Promise<void> {
		if (!CAMERA_ACTS.has(act.action)) return this.runSpeech(act);
		const turn = this.cameraTurn.then(() => this.runCamera(act));
		this.cameraTurn = turn.catch(() => {});
		return turn;
	}

	private async runSpeech(act: Act): Promise<void> {
		switch (act.action) {
			case "speak":
				// The bot host speaks text with espeak-ng only; other providers reach it as audio.
				return this.speak(await espeakWav(act.text, espeakVoice(act.voice)), { text: act.text, provider: "espeak" });
			case "speak_audio": {
				const audio = act.audioBase64
					? Buffer.from(act.audioBase64, "base64")
					: act.url
						? await this.download(act.url, "the audio URL")
						: null;
				if (!audio) throw new Error("speak_audio needs url or audioBase64");
				// speak.started always says `text`: what the gateway synthesized, or null for the caller's own audio.
				const payload = act.text
					? { text: act.text, ...(act.provider ? { provider: act.provider } : {}) }
					: { text: null, source: act.url ? "url" : "base64" };
				return this.speak(audio, payload);
			}
			case "speak_stop":
				this.stoppedSpeech = this.speechId;
				await this.page.evaluate(() => window.__bot.stopSpeaking());
				return;
			default:
				throw new Error(`act ${act.action} is not an in-call action`);
		}
	}

	private async runCamera(act: Act): Promise<void> {
		switch (act.action) {
			case "screen_show":
				return this.showScreen(act);
			case "screen_start": {
				const ready = this.loaded;
				this.loaded = null;
				if (!ready) throw new Error("no screen content is loaded (send it with start_share false first)");
				return this.startScreen(ready);
			}
			case "screen_stop":
				await this.discardLoaded();
				return this.stopScreen();
			case "avatar_set": {
				const image = act.image_base64
					? dataUrl(Buffer.from(act.image_base64, "base64"))
					: act.url
						? dataUrl(await this.download(act.url, "the avatar URL"))
						: null;
				if (!image) throw new Error("avatar_set needs url or image_base64");
				this.avatar = image;
				// The camera is the avatar's unless it shows the content (no screen share).
				if (this.screen?.presentedAs !== "camera") await this.draw("camera", "image", image, "cover");
				this.emit("avatar.set", {});
				return;
			}
			case "avatar_reset":
				this.avatar = null;
				if (this.screen?.presentedAs !== "camera") await this.draw("camera", "image", null);
				this.emit("avatar.reset", {});
				return;
			default:
				throw new Error(`act ${act.action} is not an in-call action`);
		}
	}

	private async speak(audio: Buffer, payload: Record<string, unknown>): Promise<void> {
		const id = ++this.speechId;
		this.emit("speak.started", payload);
		await this.driver.setMicrophone(this.page, true);
		let outcome: "completed" | "interrupted" = "interrupted";
		try {
			if (this.stoppedSpeech !== id) outcome = await this.page.evaluate((b64: string) => window.__bot.speak(b64), audio.toString("base64"));
		} finally {
			// A newer speech keeps the microphone; otherwise mute as soon as we are done.
			if (id === this.speechId) await this.driver.setMicrophone(this.page, false).catch(() => {});
			this.emit(outcome === "completed" ? "speak.completed" : "speak.interrupted", payload);
		}
	}

	/** Draws on the virtual camera (switched on with something to show, off without) or the virtual screen. */
	private async draw(feed: Feed, kind: "image" | "video", url: string | null, fit: Fit = "contain"): Promise<void> {
		await this.page.evaluate(
			(k: "image" | "video", u: string | null, f: Fit, d: Feed) => window.__bot.show(k, u, f, d),
			kind,
			url,
			fit,
			feed,
		);
		if (feed === "camera") await this.driver.setCamera(this.page, url !== null);
	}

	/**
	 * Loads the content (downloaded, or rendered on its page) and presents it, or, with
	 * `start: false`, keeps it ready for the next `screen_start` while nothing changes in the call.
	 */
	private async showScreen(act: Extract<Act, { action: "screen_show" }>): Promise<void> {
		const ready = await this.prepareScreen(act);
		if (act.start === false) {
			await this.discardLoaded();
			this.loaded = ready;
			return;
		}
		await this.startScreen(ready);
	}

	private async startScreen(ready: ReadyScreen): Promise<void> {
		await this.stopScreen(false);
		// Content that could be presented neither way frees its rendering page.
		const presented = await this.present(ready).catch(async (err: unknown) => {
			await ready.discard();
			throw err;
		});
		const screen = { kind: ready.kind, ...presented };
		this.screen = screen;
		this.emit("screen.sharing_started", { content_type: ready.kind, presented_as: screen.presentedAs } satisfies ScreenEventPayload);
	}

	/**
	 * Presents the content as the platform's screen share, the camera keeping the avatar; where
	 * the platform does not let the bot share (no share control, disabled by the host, refused),
	 * on the camera instead.
	 */
	private async present(ready: ReadyScreen): Promise<{ presentedAs: PresentedAs; stop: () => Promise<void> }> {
		const offScreen = await ready.show("screen");
		const shared = await this.driver.startPresenting(this.page, this.log).catch(async (err: unknown) => {
			this.log(`presenting failed: ${errorText(err)}`);
			await this.driver.stopPresenting(this.page).catch(() => {});
			return null;
		});
		if (shared === "screen_share") {
			const stop = async () => {
				await this.driver.stopPresenting(this.page).catch((err: unknown) => this.log(`stopping the screen share: ${errorText(err)}`));
				await offScreen();
				await ready.discard();
			};
			return { presentedAs: "screen_share", stop };
		}
		await offScreen();
		const offCamera = await ready.show("camera");
		const stop = async () => {
			await offCamera();
			await ready.discard();
		};
		return { presentedAs: "camera", stop };
	}

	private async discardLoaded(): Promise<void> {
		const loaded = this.loaded;
		this.loaded = null;
		await loaded?.discard();
	}

	private async prepareScreen(act: Extract<Act, { action: "screen_show" }>): Promise<ReadyScreen> {
		const kind = act.content_type;
		if (kind === "image" || kind === "video") {
			if (!act.url) throw new Error(`screen ${kind} needs a url`);
			const media = dataUrl(await this.download(act.url, `the screen ${kind} URL`, kind === "video"));
			return {
				kind,
				show: async (feed) => {
					await this.draw(feed, kind, media);
					// The camera is given back to the avatar by the caller; the screen is cleared.
					return async () => {
						if (feed === "screen") await this.draw("screen", kind, null);
					};
				},
				discard: async () => {},
			};
		}
		return this.renderSurface(act);
	}

	/** A user's media, through the egress guard and under the host's byte cap. */
	private download(url: string, what: string, video = false): Promise<Buffer> {
		const { policy, maxBytes, maxVideoBytes } = this.egress;
		return fetchGuarded(url, { what, policy, maxBytes: video ? maxVideoBytes : maxBytes });
	}

	/** url and html content: rendered on a 1920x1080 page whose frames feed the screen (or camera) canvas once shown. */
	private async renderSurface(act: Extract<Act, { action: "screen_show" }>): Promise<ReadyScreen> {
		const content =
			act.content_type === "html" ? { kind: "html" as const, html: act.html ?? "" } : { kind: "url" as const, url: act.url ?? "" };
		const { page: surface, close } = await openSurface(this.browser, content, this.egress, this.log);
		const grab = () =>
			Promise.race([
				surface.screenshot({ type: "jpeg", quality: 70, encoding: "base64" }),
				new Promise<null>((resolve) => setTimeout(() => resolve(null), 3_000)),
			]).catch(() => null);
		await this.page.bringToFront();
		const first = await grab();
		if (!first) {
			await close();
			throw new Error("the shared content did not render");
		}
		const show = async (feed: Feed) => {
			let running = true;
			const pump = async () => {
				while (running) {
					const frame = await grab();
					if (frame && running)
						await this.page.evaluate(
							(u: string, d: Feed) => window.__bot.show("image", u, "contain", d),
							`data:image/jpeg;base64,${frame}`,
							feed,
						);
					await new Promise((r) => setTimeout(r, 700));
				}
			};
			await this.draw(feed, "image", `data:image/jpeg;base64,${first}`);
			const pumping = pump().catch(() => {});
			return async () => {
				running = false;
				await pumping;
				if (feed === "screen") await this.draw("screen", "image", null);
			};
		};
		return { kind: act.content_type, show, discard: close };
	}

	private async stopScreen(report = true): Promise<void> {
		const screen = this.screen;
		if (!screen) return;
		this.screen = null;
		await screen.stop();
		if (screen.presentedAs === "camera") await this.draw("camera", "image", this.avatar, "cover");
		if (report)
			this.emit("screen.sharing_stopped", { content_type: screen.kind, presented_as: screen.presentedAs } satisfies ScreenEventPayload);
	}
}

const CAMERA_ACTS: ReadonlySet<Act["action"]> = new Set(["screen_show", "screen_start", "screen_stop", "avatar_set", "avatar_reset"]);

/** Screen content loaded and checked: `show` draws it on a feed and gives what takes it off; `discard` frees it. */
interface ReadyScreen {
	kind: ScreenEventPayload["content_type"];
	show: (feed: Feed) => Promise<() => Promise<void>>;
	discard: () => Promise<void>;
}

/** A data URL with the media type sniffed from the first bytes. */
function dataUrl(bytes: Buffer): string {
	const head = bytes.subarray(0, 16);
	const text = head.toString("latin1");
	const type = text.startsWith("\x89PNG")
		? "image/png"
		: head[0] === 0xff && head[1] === 0xd8
			? "image/jpeg"
			: text.startsWith("GIF8")
				? "image/gif"
				: text.startsWith("RIFF") && text.slice(8, 12) === "WEBP"
					? "image/webp"
					: text.trimStart().startsWith("<")
						? "image/svg+xml"
						: text.slice(4, 8) === "ftyp"
							? "video/mp4"
							: text.startsWith("\x1aE\xdf\xa3")
								? "video/webm"
								: "application/octet-stream";
	return `data:${type};base64,${bytes.toString("base64")}`;
}
