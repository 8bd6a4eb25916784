/**
 * Interactive acts in the call: speech through the virtual microphone (unmuted only while
 * speaking), and screen content or an avatar on the virtual camera (a canvas stream).
 * Each act reports its events on the channel; none of them blocks the caption reader.
 */
import type { Browser, Page } from "puppeteer-core";
import type { Act } from "../../src/bot-channel/protocol.ts";
import type { MeetingDriver } from "../drivers/types.ts";
import type { Outgoing } from "./channel.ts";
import { fetchGuarded, type HostEgress } from "./egress.ts";
import { openSurface } from "./surface.ts";
import { espeakVoice, espeakWav } from "./tts.ts";

type EventName = Extract<Outgoing, { type: "event" }>["name"];

interface BotPageApi {
	startCapture(): void;
	speak(base64: string): Promise<"completed" | "interrupted">;
	stopSpeaking(): boolean;
	show(kind: "image" | "video", url: string | null, fit?: "cover" | "contain"): Promise<boolean>;
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
	private screen: { kind: string; stop: () => Promise<void> } | null = null;

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

	async run(act: Act): Promise<void> {
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
			case "screen_show":
				return this.showScreen(act);
			case "screen_stop":
				return this.stopScreen();
			case "avatar_set": {
				const image = act.image_base64
					? dataUrl(Buffer.from(act.image_base64, "base64"))
					: act.url
						? dataUrl(await this.download(act.url, "the avatar URL"))
						: null;
				if (!image) throw new Error("avatar_set needs url or image_base64");
				this.avatar = image;
				if (!this.screen) await this.showOnCamera("image", image, "cover");
				this.emit("avatar.set", {});
				return;
			}
			case "avatar_reset":
				this.avatar = null;
				if (!this.screen) await this.showOnCamera("image", null);
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

	private async showOnCamera(kind: "image" | "video", url: string | null, fit: "cover" | "contain" = "contain"): Promise<void> {
		await this.page.evaluate(
			(k: "image" | "video", u: string | null, f: "cover" | "contain") => window.__bot.show(k, u, f),
			kind,
			url,
			fit,
		);
		await this.driver.setCamera(this.page, url !== null);
	}

	private async showScreen(act: Extract<Act, { action: "screen_show" }>): Promise<void> {
		await this.stopScreen(false);
		if (act.content_type === "image" || act.content_type === "video") {
			if (!act.url) throw new Error(`screen ${act.content_type} needs a url`);
			const media = dataUrl(await this.download(act.url, `the screen ${act.content_type} URL`, act.content_type === "video"));
			await this.showOnCamera(act.content_type, media);
			this.screen = { kind: act.content_type, stop: async () => {} };
		} else {
			this.screen = { kind: act.content_type, stop: await this.renderSurface(act) };
		}
		this.emit("screen.sharing_started", { content_type: act.content_type });
	}

	/** A user's media, through the egress guard and under the host's byte cap. */
	private download(url: string, what: string, video = false): Promise<Buffer> {
		const { policy, maxBytes, maxVideoBytes } = this.egress;
		return fetchGuarded(url, { what, policy, maxBytes: video ? maxVideoBytes : maxBytes });
	}

	/** url and html content: rendered on a 1920x1080 page whose frames feed the camera canvas. */
	private async renderSurface(act: Extract<Act, { action: "screen_show" }>): Promise<() => Promise<void>> {
		const content =
			act.content_type === "html" ? { kind: "html" as const, html: act.html ?? "" } : { kind: "url" as const, url: act.url ?? "" };
		const { page: surface, close } = await openSurface(this.browser, content, this.egress, this.log);
		const grab = () =>
			Promise.race([
				surface.screenshot({ type: "jpeg", quality: 70, encoding: "base64" }),
				new Promise<null>((resolve) => setTimeout(() => resolve(null), 3_000)),
			]).catch(() => null);
		let running = true;
		const pump = async () => {
			while (running) {
				const frame = await grab();
				if (frame && running) await this.page.evaluate((u: string) => window.__bot.show("image", u), `data:image/jpeg;base64,${frame}`);
				await new Promise((r) => setTimeout(r, 700));
			}
		};
		await this.page.bringToFront();
		const first = await grab();
		if (!first) {
			await close();
			throw new Error("the shared content did not render");
		}
		await this.showOnCamera("image", `data:image/jpeg;base64,${first}`);
		const pumping = pump().catch(() => {});
		return async () => {
			running = false;
			await pumping;
			await close();
		};
	}

	private async stopScreen(report = true): Promise<void> {
		const screen = this.screen;
		if (!screen) return;
		this.screen = null;
		await screen.stop();
		await this.showOnCamera("image", this.avatar, "cover");
		if (report) this.emit("screen.sharing_stopped", { content_type: screen.kind });
	}
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
