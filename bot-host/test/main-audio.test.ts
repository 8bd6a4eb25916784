/**
 * The bot page's meeting-audio capture with a platform's own mix (page-media.js `startCapture`),
 * in real Chromium over real WebRTC loopbacks: only the `mainAudio` track while there is one (V
 * teams-main-audio.ts), every track once none has come within the fallback (doubled audio beats
 * silence), and every track at once where the platform names no mix.
 */
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../test/shared/wait.ts";
import { type BotBrowser, launchBotBrowser } from "../bot/browser.ts";
import { chromiumSandbox } from "../bot/chromium-sandbox.ts";
import { preparePage } from "../bot/meeting-page.ts";
import type { AudioCapture } from "../drivers/types.ts";
import { toneShare } from "./tones.ts";

const MIX_HZ = 440;
const COPY_HZ = 5_000;
const RATE = 16_000;

/** Two remote tracks, each a steady tone: the mix (named `mainAudio…` when `named`) and another. */
async function sendTracks(named: boolean): Promise<void> {
	const ctx = new AudioContext();
	const send = async (hz: number, ids: { stream: string; track: string } | null) => {
		const tone = ctx.createOscillator();
		tone.frequency.value = hz;
		const dest = ctx.createMediaStreamDestination();
		tone.connect(dest);
		tone.start();
		const sender = new RTCPeerConnection();
		const receiver = new RTCPeerConnection();
		sender.onicecandidate = (e) => e.candidate && receiver.addIceCandidate(e.candidate);
		receiver.onicecandidate = (e) => e.candidate && sender.addIceCandidate(e.candidate);
		receiver.ontrack = (e) => {
			// Remote audio plays through a (muted) element, as the platforms' pages do.
			const sink = new Audio();
			sink.muted = true;
			sink.srcObject = e.streams[0] ?? null;
			sink.play().catch(() => {});
		};
		for (const track of dest.stream.getAudioTracks()) sender.addTrack(track, dest.stream);
		const offer = await sender.createOffer();
		await sender.setLocalDescription(offer);
		const sdp = ids ? (offer.sdp ?? "").replace(/msid:\S+ \S+/g, `msid:${ids.stream} ${ids.track}`) : offer.sdp;
		await receiver.setRemoteDescription({ type: "offer", sdp });
		await receiver.setLocalDescription(await receiver.createAnswer());
		await sender.setRemoteDescription(receiver.localDescription as RTCSessionDescriptionInit);
	};
	await Promise.all([send(440, named ? { stream: "mainAudio-stream", track: "mainAudio-1" } : null), send(5_000, null)]);
}

describe("capturing a platform's own mix of the meeting", () => {
	let bot: BotBrowser;
	beforeAll(async () => {
		bot = await launchBotBrowser("main-audio-test", {
			executablePath: "/usr/bin/chromium",
			extraFlags: [],
			fakeDevices: true,
			sandbox: chromiumSandbox("/usr/bin/chromium", process.env.BOT_CHROMIUM_SANDBOX, () => {}).sandbox,
		});
	});
	afterAll(async () => {
		await bot?.close();
	});

	/** The capture's first `seconds` of audio with these tracks and this option. */
	async function capture(named: boolean, option: AudioCapture | null, seconds: number): Promise<Int16Array> {
		const page: Page = await bot.browser.newPage();
		const chunks: Buffer[] = [];
		await preparePage(page, {
			onAudioChunk: (base64) => chunks.push(Buffer.from(base64, "base64")),
			onHeard: () => {},
			onCaptions: () => {},
		});
		await page.goto("data:text/html,<p>meeting</p>");
		await page.evaluate((o) => window.__bot.startCapture(o), option);
		await page.evaluate(sendTracks, named);
		const pcm = await eventually(`${seconds} s of captured audio`, () => {
			const all = Buffer.concat(chunks);
			return all.length >= seconds * RATE * 2 ? all : undefined;
		});
		await page.close();
		return new Int16Array(pcm.buffer, pcm.byteOffset, seconds * RATE);
	}

	const teams: AudioCapture = { mainTrack: "mainAudio", fallbackAfterMs: 2_000 };

	it("keeps only the mainAudio track while there is one", async () => {
		const heard = await capture(true, teams, 3);
		const late = heard.subarray(RATE);
		expect(toneShare(late, RATE, MIX_HZ)).toBeGreaterThan(0.8);
		expect(toneShare(heard, RATE, COPY_HZ)).toBe(0);
	});

	it("takes every track once no mainAudio has come within the fallback, and nothing before it", async () => {
		const heard = await capture(false, teams, 4);
		const before = heard.subarray(0, 1.5 * RATE);
		expect(toneShare(before, RATE, MIX_HZ) + toneShare(before, RATE, COPY_HZ)).toBe(0);
		const after = heard.subarray(3 * RATE);
		expect(toneShare(after, RATE, MIX_HZ)).toBeGreaterThan(0.8);
		expect(toneShare(after, RATE, COPY_HZ)).toBeGreaterThan(0.8);
	});

	it("takes every track at once where the platform names no mix of its own", async () => {
		const heard = await capture(true, null, 2);
		const late = heard.subarray(RATE);
		expect(toneShare(late, RATE, MIX_HZ)).toBeGreaterThan(0.8);
		expect(toneShare(late, RATE, COPY_HZ)).toBeGreaterThan(0.8);
	});
});
