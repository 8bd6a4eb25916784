/**
 * The participants' video on each sandbox platform page, in real Chromium: every participant's
 * tile plays a moving picture of its own in a <video> (two tiles differ, and each differs from
 * itself a moment later), a camera that is off shows initials instead, and the platform's speaker
 * view (the large tile, or the lit one) follows the scenario's speech from one person to the next,
 * as the meeting's record of active speakers says.
 */
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Platform } from "../../src/bot-channel/protocol.ts";
import { eventually } from "../../test/shared/wait.ts";
import { type BotBrowser, launchBotBrowser } from "../bot/browser.ts";
import { chromiumSandbox } from "../bot/chromium-sandbox.ts";
import { type Sandbox, startSandbox } from "../sandbox/server.ts";
import { meetingLink, nativeIdFor } from "./harness.ts";

/** Where each page puts a participant's tile, and which participant its speaker view shows now. */
interface Layout {
	tile: (id: string) => string;
	/** The page's own control to open its speaker view, where it does not open there (Zoom's View menu). */
	speakerView?: string[];
	/** In the page: the id of the participant the speaker view shows (large or lit), or null. */
	shown: () => string | null;
	/** In the page: the ids the platform's speaking indicator lights now (what the drivers read). */
	speaking: () => string[];
}

const LAYOUTS: Record<Platform, Layout> = {
	google_meet: {
		tile: (id) => `[data-requested-participant-id="${id}"]`,
		shown: () => {
			const main = [...document.querySelectorAll<HTMLElement>("#tiles > [data-requested-participant-id]")]
				.map((tile) => ({ tile, area: tile.getBoundingClientRect().width * tile.getBoundingClientRect().height }))
				.sort((a, b) => b.area - a.area)[0];
			return main?.tile.dataset.requestedParticipantId ?? null;
		},
		speaking: () =>
			[...document.querySelectorAll<HTMLElement>('[data-requested-participant-id] [data-audio-level]:not([data-audio-level="0"])')].map(
				(level) => (level.parentElement as HTMLElement).dataset.requestedParticipantId ?? "",
			),
	},
	zoom: {
		tile: (id) => `.gallery-video-container__video-frame[data-participant="${id}"]`,
		speakerView: ["#view-button", "#to-speaker"],
		shown: () => document.querySelector<HTMLElement>(".speaker-active-container__video-frame")?.dataset.participant ?? null,
		speaking: () =>
			[...document.querySelectorAll<HTMLElement>(".speaker-bar-container__video-frame--active")].map((f) => f.dataset.participant ?? ""),
	},
	teams: {
		tile: (id) => `[data-stream-type][data-participant="${id}"]`,
		// Teams' gallery keeps every tile's size and lights the speaker's outline.
		shown: () => {
			const lit = [...document.querySelectorAll<HTMLElement>("[data-stream-type][data-participant]")].find(
				(tile) => getComputedStyle(tile.querySelector('[data-tid="voice-level-stream-outline"]') as Element, "::before").opacity === "1",
			);
			return lit?.dataset.participant ?? null;
		},
		speaking: () =>
			[...document.querySelectorAll<HTMLElement>('[data-stream-type] [data-tid="voice-level-stream-outline"].fui-r1lk4z9a')].map(
				(outline) => (outline.parentElement as HTMLElement).dataset.participant ?? "",
			),
	},
};

/** A 32x18 RGB thumbnail of what a tile's <video> shows now. */
function thumbnail(selector: string): number[] {
	const video = document.querySelector<HTMLVideoElement>(`${selector} video`);
	if (!video) throw new Error(`no video in ${selector}`);
	const canvas = Object.assign(document.createElement("canvas"), { width: 32, height: 18 });
	const g = canvas.getContext("2d", { willReadFrequently: true }) as CanvasRenderingContext2D;
	g.drawImage(video, 0, 0, 32, 18);
	return [...g.getImageData(0, 0, 32, 18).data].filter((_, i) => i % 4 !== 3);
}

const averageColour = (rgb: number[]) =>
	[0, 1, 2].map((c) => rgb.filter((_, i) => i % 3 === c).reduce((a, b) => a + b, 0) / (rgb.length / 3));
/** The share of pixels whose colour changed clearly between two thumbnails. */
const changedShare = (a: number[], b: number[]) => {
	let changed = 0;
	for (let i = 0; i < a.length; i += 3) {
		const channels = [0, 1, 2].map((c) => Math.abs((a[i + c] ?? 0) - (b[i + c] ?? 0)));
		if (Math.max(...channels) > 40) changed++;
	}
	return changed / (a.length / 3);
};

describe("participants' video on the sandbox platform pages", () => {
	let sandbox: Sandbox;
	let bot: BotBrowser;
	beforeAll(async () => {
		sandbox = await startSandbox();
		bot = await launchBotBrowser("sandbox-video-test", {
			executablePath: "/usr/bin/chromium",
			extraFlags: sandbox.chromiumFlags,
			fakeDevices: true,
			sandbox: chromiumSandbox("/usr/bin/chromium", process.env.BOT_CHROMIUM_SANDBOX, () => {}).sandbox,
		});
	});
	afterAll(async () => {
		await bot?.close();
		await sandbox?.close();
	});

	let n = 0;
	it.each(["google_meet", "zoom", "teams"] satisfies Platform[])(
		"plays a distinct moving picture per %s participant and shows the active speaker as the scenario's speech moves",
		async (platform) => {
			const layout = LAYOUTS[platform];
			const nativeId = nativeIdFor(platform, 900_000 + ++n);
			sandbox.setScenario(nativeId, {
				direct_join: true,
				speech_start_ms: 2_500,
				speech_gap_ms: 400,
				participants: [
					{ name: "Alice Archer", lines: ["Hello.", "Yes."] },
					{ name: "Bob Baker", lines: ["Hi there.", "Good."] },
					{ name: "Cara Cole", camera_on: false },
				],
			});
			const page: Page = await bot.browser.newPage();
			try {
				await page.goto(meetingLink(platform, nativeId));
				await page.waitForFunction(() => "Sandbox" in window);
				// Straight into the call through the runtime, so the test is about the call, not a driver's way in.
				await page.evaluate(() => window.Sandbox.ask({ name: "Watcher" }));
				for (const control of layout.speakerView ?? []) await page.click(control);
				// Every sample the page takes of who speaks and whom the speaker view shows, from before the first line.
				await page.evaluate(
					`window.layoutSamples = []; setInterval(() => window.layoutSamples.push({ shown: (${layout.shown})(), speaking: (${layout.speaking})() }), 50);`,
				);

				const alice = layout.tile("p1");
				const bob = layout.tile("p2");
				await page.waitForFunction(
					(a, b) => [a, b].every((s) => (document.querySelector<HTMLVideoElement>(`${s} video`)?.readyState ?? 0) >= 2),
					{},
					alice,
					bob,
				);
				const first = { alice: await page.evaluate(thumbnail, alice), bob: await page.evaluate(thumbnail, bob) };
				await new Promise((resolve) => setTimeout(resolve, 500));
				const later = await page.evaluate(thumbnail, alice);
				const [a, b] = [averageColour(first.alice), averageColour(first.bob)];
				expect(Math.max(...a.map((v, i) => Math.abs(v - (b[i] ?? 0)))), "Alice's and Bob's pictures differ in colour").toBeGreaterThan(40);
				expect(changedShare(first.alice, later), "Alice's picture moves").toBeGreaterThan(0.05);
				// Cara's camera is off: her tile shows her initials, no picture.
				const cara = await page.$eval(layout.tile("p3"), (tile) => ({
					videos: tile.querySelectorAll("video").length,
					text: tile.textContent,
				}));
				expect(cara.videos).toBe(0);
				expect(cara.text).toContain(platform === "zoom" ? "Cara Cole" : "CC");

				// All four lines said, in turn: Alice, Bob, Alice, Bob.
				const said = await eventually(
					"the four lines' active speakers in the meeting's record",
					() => {
						const log = sandbox.observed(nativeId)?.attendees[0]?.active_speakers ?? [];
						return log.length >= 4 ? log : undefined;
					},
					40_000,
				);
				expect(said.map((s) => s.speaker)).toEqual(["Alice Archer", "Bob Baker", "Alice Archer", "Bob Baker"]);
				expect(said.map((s) => s.at)).toEqual([...said.map((s) => s.at)].sort((x, y) => x - y));
				// The page has sampled the four lines, each to its end.
				await page.waitForFunction(() => {
					const samples = window.layoutSamples;
					const starts = samples.filter((s, i) => s.speaking.length > 0 && (samples[i - 1]?.speaking.length ?? 0) === 0);
					return starts.length === 4 && samples.at(-1)?.speaking.length === 0;
				});
				const samples = await page.evaluate(() => window.layoutSamples);
				// Whenever the platform's indicator shows someone speaking, the speaker view shows them.
				const whileSpeaking = samples.filter((s) => s.speaking.length > 0);
				expect(whileSpeaking.length).toBeGreaterThan(0);
				for (const s of whileSpeaking) expect(s.shown).toBe(s.speaking[0]);
				// And the speaker view moved with the speech: Alice, Bob, Alice, Bob (Meet's stage shows the
				// first one in, Alice, before anyone speaks; Teams lights nobody between lines).
				const shown = samples.map((s) => s.shown).filter((id): id is string => id !== null);
				expect(shown.filter((id, i) => id !== shown[i - 1])).toEqual(["p1", "p2", "p1", "p2"]);
				if (platform === "zoom") {
					// Back in Gallery View, the last speaker's frame (Bob's) is the ringed one.
					await page.click("#view-button");
					await page.click("#to-gallery");
					const ringed = await page.$$eval(".gallery-video-container__video-frame", (frames) =>
						frames.filter((f) => (f as HTMLElement).style.outline !== "").map((f) => (f as HTMLElement).dataset.participant),
					);
					expect(ringed).toEqual(["p2"]);
				}
			} finally {
				await page.close();
			}
		},
		90_000,
	);
});

declare global {
	interface Window {
		Sandbox: { ask(options: { name: string }): Promise<void> };
		layoutSamples: { shown: string | null; speaking: string[] }[];
	}
}
