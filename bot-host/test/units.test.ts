/** The pure parts, without a browser: trackers, link rewriting, WAV, the sandbox clock. */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { BotSegment } from "../../src/bot-channel/protocol.ts";
import { admit, hostEgressFromEnv } from "../bot/egress.ts";
import { outcomeOf } from "../bot/outcomes.ts";
import { transcriptionEndpoint } from "../bot/transcriber.ts";
import { CaptionTracker, ChatTracker, ParticipantTracker } from "../bot/transcript.ts";
import { encodeWav, wavDurationMs } from "../bot/wav.ts";
import { googleMeet } from "../drivers/google-meet.ts";
import { teams } from "../drivers/teams.ts";
import { zoom } from "../drivers/zoom.ts";
import { SandboxMeeting, Scenario } from "../sandbox/scenario.ts";

describe("caption tracker", () => {
	const track = () => {
		const sent: BotSegment[] = [];
		const tracker = new CaptionTracker({ prefix: "m1", callStartedAt: 0, settleMs: 1_000, language: "en", emit: (s) => sent.push(s) });
		return { sent, tracker };
	};

	it("sends drafts while an entry grows and one confirmation with the same id once it settles", () => {
		const { sent, tracker } = track();
		tracker.update([{ key: "c1", speaker: "Ann", text: "Hello" }], [], 1_000);
		tracker.update([{ key: "c1", speaker: "Ann", text: "Hello there" }], [], 1_200);
		tracker.update([{ key: "c1", speaker: "Ann", text: "Hello there" }], [], 1_900);
		tracker.update([{ key: "c1", speaker: "Ann", text: "Hello there" }], [], 2_300);
		tracker.update([{ key: "c1", speaker: "Ann", text: "Hello there" }], [], 3_000);
		expect(sent.map((s) => [s.segment_id, s.text, s.completed])).toEqual([
			["m1-c1", "Hello", false],
			["m1-c1", "Hello there", false],
			["m1-c1", "Hello there", true],
		]);
		expect(sent[2]).toMatchObject({ speaker: "Ann", speaker_source: "caption", start: 1, end: 1.2, language: "en" });
	});

	it("confirms an entry that leaves the screen, and names a nameless caption by the active speaker", () => {
		const { sent, tracker } = track();
		tracker.update([{ key: "z1", speaker: null, text: "We ship" }], ["Bo"], 100);
		tracker.update([], [], 200);
		expect(sent.at(-1)).toMatchObject({ text: "We ship", completed: true, speaker: "Bo", speaker_source: "active_speaker" });
		tracker.update([{ key: "z2", speaker: null, text: "Who said that" }], [], 300);
		expect(sent.at(-1)).toMatchObject({ speaker: "Unknown speaker", speaker_source: "none" });
		tracker.flush();
		expect(sent.at(-1)).toMatchObject({ segment_id: "m1-z2", completed: true });
	});

	it("rebinds a nameless caption's draft as soon as the active speaker shows, under the same segment_id", () => {
		const { sent, tracker } = track();
		tracker.update([{ key: "z1", speaker: null, text: "Budget is" }], [], 100);
		expect(sent).toEqual([expect.objectContaining({ segment_id: "m1-z1", speaker: "Unknown speaker", speaker_source: "none" })]);
		// The text has not changed: the rebinding alone is news.
		tracker.update([{ key: "z1", speaker: null, text: "Budget is" }], ["Cleo"], 300);
		expect(sent.map((s) => [s.segment_id, s.speaker, s.speaker_source, s.completed])).toEqual([
			["m1-z1", "Unknown speaker", "none", false],
			["m1-z1", "Cleo", "active_speaker", false],
		]);
		tracker.update([{ key: "z1", speaker: null, text: "Budget is" }], ["Dan"], 1_400);
		expect(sent.at(-1)).toMatchObject({ segment_id: "m1-z1", speaker: "Cleo", speaker_source: "active_speaker", completed: true });
		expect(sent).toHaveLength(3);
	});
});

describe("chat and participant trackers", () => {
	it("reports each chat line once even when the panel re-renders its list", () => {
		const chat = new ChatTracker("Notetaker");
		const first = chat.update([{ sender: "Ann", text: "hi" }], 1);
		chat.noteSent("hello");
		const again = chat.update(
			[
				{ sender: "Ann", text: "hi" },
				{ sender: "You", text: "hello" },
				{ sender: "Ann", text: "hi" },
			],
			2,
		);
		expect(first).toEqual([{ sender: "Ann", text: "hi", timestamp: 1, is_from_bot: false }]);
		expect(again).toEqual([
			{ sender: "You", text: "hello", timestamp: 2, is_from_bot: true },
			{ sender: "Ann", text: "hi", timestamp: 2, is_from_bot: false },
		]);
	});

	it("turns successive name lists into join and leave events", () => {
		const people = new ParticipantTracker();
		const events: string[] = [];
		const record = (e: "join" | "leave", n: string) => events.push(`${e}:${n}`);
		people.update([], record);
		expect(people.everJoined).toBe(false);
		people.update(["Ann", "Bo"], record);
		people.update(["Bo"], record);
		expect(events).toEqual(["join:Ann", "join:Bo", "leave:Ann"]);
		expect(people).toMatchObject({ everJoined: true, count: 1 });
	});
});

describe("meeting links", () => {
	it("rewrites Zoom links to the web client and carries the passcode", () => {
		expect(zoom.joinUrl("https://us05web.zoom.us/j/8123456789?pwd=abc", null)).toBe("https://app.zoom.us/wc/8123456789/join?pwd=abc");
		expect(zoom.joinUrl("https://zoom.us/j/8123456789", "s3cret")).toBe("https://app.zoom.us/wc/8123456789/join?pwd=s3cret");
		expect(zoom.joinUrl("https://app.zoom.us/wc/join/8123456789", null)).toBe("https://app.zoom.us/wc/8123456789/join");
		expect(zoom.joinUrl("https://events.zoom.us/ev/abc", "x")).toBe("https://events.zoom.us/ev/abc");
	});

	it("keeps only the Meet code and pins English; adds the Teams passcode", () => {
		expect(googleMeet.joinUrl("https://meet.google.com/abc-defg-hij?authuser=2&pli=1", null)).toBe(
			"https://meet.google.com/abc-defg-hij?hl=en",
		);
		expect(teams.joinUrl("https://teams.microsoft.com/meet/123456", "pw")).toBe("https://teams.microsoft.com/meet/123456?p=pw");
		expect(teams.joinUrl("https://teams.live.com/meet/9?p=given", "pw")).toBe("https://teams.live.com/meet/9?p=given");
	});

	it("accepts a transcription base URL or the full endpoint", () => {
		expect(transcriptionEndpoint("http://h:1")).toBe("http://h:1/v1/audio/transcriptions");
		expect(transcriptionEndpoint("http://h:1/v1/")).toBe("http://h:1/v1/audio/transcriptions");
		expect(transcriptionEndpoint("http://h:1/openai/v1/audio/transcriptions")).toBe("http://h:1/openai/v1/audio/transcriptions");
	});
});

describe("wav and the sandbox clock", () => {
	it("encodes PCM16 mono WAV whose header gives back the duration", () => {
		const wav = encodeWav(Buffer.alloc(16_000 * 2 * 3), 16_000);
		expect(wav.toString("ascii", 0, 4)).toBe("RIFF");
		expect(wavDurationMs(wav)).toBe(3_000);
	});

	it("derives lobby, admission, denial and removal from the scenario clock", () => {
		let now = 0;
		const clock = () => now;
		const admitted = new SandboxMeeting("m", Scenario.parse({ admit_after_ms: 500, remove_after_ms: 1_000 }), clock);
		const bot = admitted.ask("Bot", "zoom", false, false, null);
		expect(admitted.phaseOf(bot)).toBe("lobby");
		now = 500;
		expect(admitted.phaseOf(bot)).toBe("in_call");
		now = 1_499;
		expect(admitted.phaseOf(bot)).toBe("in_call");
		now = 1_500;
		expect(admitted.phaseOf(bot)).toBe("removed");
		expect(admitted.observed().attendees[0]?.phases).toEqual(["lobby", "in_call", "removed"]);

		const locked = new SandboxMeeting("p", Scenario.parse({ passcode: "right", lobby_forever: true }), clock);
		expect(locked.phaseOf(locked.ask("Bot", "zoom", false, false, "wrong"))).toBe("not_found");
		const waiting = locked.ask("Bot", "zoom", false, false, "right");
		now = 99_999;
		expect(locked.phaseOf(waiting)).toBe("lobby");
		locked.force("deny");
		expect(locked.phaseOf(waiting)).toBe("denied");
	});
});

describe("outcomes", () => {
	it("reads the same removal screen as a denial before admission and an eviction after", () => {
		expect(outcomeOf("removed", "awaiting_admission")).toMatchObject({
			status: "failed",
			completion_reason: "awaiting_admission_rejected",
		});
		expect(outcomeOf("removed", "active")).toMatchObject({ status: "completed", completion_reason: "evicted" });
		expect(outcomeOf("bot_wall", "joining")).toMatchObject({ status: "failed", reason: expect.stringMatching(/^bot_wall/) });
		expect(outcomeOf("lobby", "awaiting_admission")).toBeNull();
	});
});

describe("egress guard without a browser", () => {
	it("loads under plain Node, as the Dockerfile runs it (the Worker's address table included)", () => {
		// Vitest resolves imports a bundler's way; `node bot-host/main.ts` does not.
		const run = spawnSync(process.execPath, ["--input-type=module", "-e", "await import('./bot-host/service.ts')"], { encoding: "utf8" });
		expect(run.stderr).toBe("");
		expect(run.status).toBe(0);
	});

	it("judges every resolved address: one private answer among public ones is enough to refuse", async () => {
		const policy = { allowPrivate: false, resolve: async () => ["93.184.215.14", "10.1.2.3"] };
		await expect(admit("https://mixed.example/a.png", policy, "the avatar URL")).rejects.toThrow(
			"the avatar URL resolves to a private address",
		);
		const metadata = { allowPrivate: true, resolve: async () => ["fd00:ec2::254", "169.254.169.254"] };
		await expect(admit("https://meta.example/", metadata, "the avatar URL")).rejects.toThrow("resolves to a metadata address");
		const ok = await admit("https://fine.example/", { allowPrivate: false, resolve: async () => ["2606:4700::1111"] }, "the avatar URL");
		expect(ok).toMatchObject({ address: "2606:4700::1111", family: 6 });
	});

	it("reads the host's limits from its environment, failing closed", () => {
		expect(hostEgressFromEnv({})).toEqual({ policy: { allowPrivate: false }, maxBytes: 8 * 1024 * 1024, maxVideoBytes: 50 * 1024 * 1024 });
		expect(hostEgressFromEnv({ OUTBOUND_ALLOW_PRIVATE: "true", BOT_DOWNLOAD_MAX_BYTES: "1000", BOT_VIDEO_MAX_BYTES: "x" })).toEqual({
			policy: { allowPrivate: true },
			maxBytes: 1000,
			maxVideoBytes: 50 * 1024 * 1024,
		});
	});

	it("lets an operator name exact private targets (an internal transcription server), and nothing around them", async () => {
		const { policy } = hostEgressFromEnv({ BOT_HOST_PRIVATE_TARGETS: "10.0.0.5:9000, [fd00::5]:443" });
		await expect(admit("http://10.0.0.5:9000/v1", policy, "the transcription endpoint")).resolves.toMatchObject({ address: "10.0.0.5" });
		await expect(admit("https://[fd00::5]/v1", policy, "the transcription endpoint")).resolves.toMatchObject({ family: 6 });
		await expect(admit("http://10.0.0.5:9001/v1", policy, "the avatar URL")).rejects.toThrow("private target 10.0.0.5 is not allowed");
		const named = { ...policy, resolve: async () => ["10.0.0.5"] };
		await expect(admit("http://whisper.corp:9000/", named, "the transcription endpoint")).resolves.toMatchObject({ address: "10.0.0.5" });
		await expect(admit("http://whisper.corp:80/", named, "the avatar URL")).rejects.toThrow("resolves to a private address");
	});
});
