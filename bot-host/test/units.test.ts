/** The pure parts, without a browser: trackers, link rewriting, WAV, the sandbox clock. */
import { spawnSync } from "node:child_process";
import { TimeoutError } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { type BotSegment, CompletionReason, REASON_OUTCOME, transcriptionEndpoint } from "../../src/bot-channel/protocol.ts";
import { admit, hostEgressFromEnv } from "../bot/egress.ts";
import { type Attendance, autoLeave } from "../bot/limits.ts";
import { hostDrained, leaving, navigationFailure, outcomeOf, reportable, type Stage } from "../bot/outcomes.ts";
import { CaptionTracker, ChatTracker, ParticipantTracker } from "../bot/transcript.ts";
import { encodeWav, wavDurationMs } from "../bot/wav.ts";
import { googleMeet } from "../drivers/google-meet.ts";
import { teams } from "../drivers/teams.ts";
import type { PageState } from "../drivers/types.ts";
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

	it("drops a reading taken before the last one applied: a tick's reading overtaken by a pushed change", () => {
		const { sent, tracker } = track();
		// The tick read the screen at 1,000 (nothing yet); the page pushed the new line at 1,100 and 1,200.
		expect(tracker.update([{ key: "z1", speaker: null, text: "The" }], [], 1_100)).toBe(true);
		expect(tracker.update([{ key: "z1", speaker: null, text: "The team" }], [], 1_200)).toBe(true);
		expect(tracker.update([], [], 1_000)).toBe(false);
		expect(sent.map((s) => [s.text, s.completed])).toEqual([
			["The", false],
			["The team", false],
		]);
		expect(tracker.update([{ key: "z1", speaker: null, text: "The team closed" }], [], 1_300)).toBe(true);
		expect(sent.at(-1)).toMatchObject({ text: "The team closed", completed: false });
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
	const STATES: PageState[] = [
		"prejoin",
		"lobby",
		"in_call",
		"denied",
		"unanswered",
		"removed",
		"ended",
		"not_found",
		"sign_in_required",
		"bot_wall",
		"left",
		"unknown",
	];
	const STAGES: Stage[] = ["joining", "awaiting_admission", "active"];

	it("reads the same removal screen as a denial before admission and an eviction (failed) after", () => {
		expect(outcomeOf("removed", "awaiting_admission")).toMatchObject({
			status: "failed",
			completion_reason: "awaiting_admission_rejected",
		});
		expect(outcomeOf("removed", "active")).toEqual({
			status: "failed",
			completion_reason: "evicted",
			reason: "removed from the meeting",
			leave: false,
		});
		// A person can get the bot past these: help requests (help.ts), not endings.
		for (const state of ["bot_wall", "sign_in_required", "unknown"] as const) expect(outcomeOf(state, "joining")).toBeNull();
		expect(outcomeOf("unanswered", "awaiting_admission")).toMatchObject({
			status: "failed",
			completion_reason: "awaiting_admission_timeout",
		});
		expect(outcomeOf("lobby", "awaiting_admission")).toBeNull();
	});

	it("reports the host ending the meeting in the reference's words, completed and left_alone, with the host named as its cause", () => {
		expect(outcomeOf("ended", "active")).toEqual({
			status: "completed",
			completion_reason: "left_alone",
			completion_cause: "ended_by_host",
			reason: "the host ended the meeting",
			leave: false,
		});
	});

	it("leaves on a host shutdown naming the fleet cause and no reason, so the room picks the stage's teardown reason", () => {
		expect(hostDrained("the bot host was stopped before the meeting ended")).toEqual({
			status: "failed",
			failure_cause: "host_drained",
			reason: "the bot host was stopped before the meeting ended",
			leave: true,
		});
	});

	it("reports every screen ending with the room's status for its reason, and words for it", () => {
		for (const state of STATES)
			for (const stage of STAGES) {
				const ending = outcomeOf(state, stage);
				if (!ending) continue;
				if (ending.completion_reason) expect(ending.status, `${state} at ${stage}`).toBe(REASON_OUTCOME[ending.completion_reason]);
				else expect(ending.status).toBe("failed");
				expect(ending.reason.length, `${state} at ${stage}`).toBeGreaterThan(10);
			}
		for (const reason of CompletionReason.options) expect(leaving(reason, "why").status).toBe(REASON_OUTCOME[reason]);
	});

	it("keeps passcodes, tokens, queries and credentials out of a reason", () => {
		const reason = reportable(
			"could not load https://bot:hunter2@app.zoom.us/wc/123/join?pwd=s3cret#x after net::ERR_FAILED; token tok-abc; code s3cret",
			["s3cret", "tok-abc", null],
		);
		expect(reason).toBe("could not load https://app.zoom.us/wc/123/join after net::ERR_FAILED; token ***; code ***");
		expect(reportable("x".repeat(5000), [])).toHaveLength(2000);
	});

	it("names a failed page load by its network error, without the link Puppeteer appends", () => {
		const err = new Error("net::ERR_NAME_NOT_RESOLVED at https://teams.example.invalid/meet/1?p=s3cret");
		expect(navigationFailure(err, 30_000)).toBe("net::ERR_NAME_NOT_RESOLVED");
		expect(navigationFailure(new TimeoutError("Navigation timeout of 30000 ms exceeded"), 30_000)).toBe("no answer within 30 s");
	});
});

describe("automatic leave", () => {
	const lobby = (ms: number): Attendance => ({ sinceStartMs: ms + 2_000, inLobbyMs: ms, call: null });
	const inCall = (over: Partial<NonNullable<Attendance["call"]>> = {}, sinceStartMs = 10_000): Attendance => ({
		sinceStartMs,
		inLobbyMs: null,
		call: { sinceAdmittedMs: 5_000, everJoined: true, aloneMs: null, silentMs: 0, ...over },
	});

	it("gives up on the lobby after max_wait_for_admission, as a failure the room also records as failed", () => {
		expect(autoLeave(lobby(299_999), { max_wait_for_admission: 300_000 })).toBeNull();
		const ending = autoLeave(lobby(300_000), { max_wait_for_admission: 300_000 });
		expect(ending).toEqual({
			status: "failed",
			completion_reason: "awaiting_admission_timeout",
			reason: "lobby wait exceeded 300 s: nobody admitted the bot (max_wait_for_admission)",
			leave: true,
		});
		expect(ending?.status).toBe(REASON_OUTCOME.awaiting_admission_timeout);
		// The default is 15 minutes.
		expect(autoLeave(lobby(15 * 60_000 - 1), {})).toBeNull();
		expect(autoLeave(lobby(15 * 60_000), {})).toMatchObject({ completion_reason: "awaiting_admission_timeout" });
	});

	it("leaves once alone after everyone left (left_alone), not while someone is there", () => {
		expect(autoLeave(inCall({ aloneMs: null }), { max_time_left_alone: 1_000 })).toBeNull();
		expect(autoLeave(inCall({ aloneMs: 999 }), { max_time_left_alone: 1_000 })).toBeNull();
		expect(autoLeave(inCall({ aloneMs: 1_000 }), { max_time_left_alone: 1_000 })).toMatchObject({
			status: "completed",
			completion_reason: "left_alone",
			reason: "everyone else left; alone for 1 s (max_time_left_alone)",
			leave: true,
		});
	});

	it("leaves when no one ever joined within no_one_joined_timeout of admission (startup_alone)", () => {
		const empty = { everJoined: false, sinceAdmittedMs: 1_500 };
		expect(autoLeave(inCall(empty), { no_one_joined_timeout: 1_600 })).toBeNull();
		expect(autoLeave(inCall(empty), { no_one_joined_timeout: 1_500 })).toMatchObject({
			status: "completed",
			completion_reason: "startup_alone",
			reason: expect.stringContaining("1.5 s"),
		});
		// Someone came: the rule no longer applies.
		expect(autoLeave(inCall({ sinceAdmittedMs: 1_500 }), { no_one_joined_timeout: 1_500 })).toBeNull();
	});

	it("caps the bot's whole stay at max_bot_time, counted from the start, in the lobby or the call", () => {
		expect(autoLeave(inCall({}, 2_499), { max_bot_time: 2_500 })).toBeNull();
		for (const at of [inCall({}, 2_500), lobby(500)])
			expect(autoLeave(at, { max_bot_time: 2_500 })).toMatchObject({
				status: "completed",
				completion_reason: "max_bot_time_exceeded",
				reason: "the bot's time limit of 2.5 s was reached (max_bot_time)",
			});
	});

	it("leaves on silence only when silence_timeout is set", () => {
		expect(autoLeave(inCall({ silentMs: 10 * 60 * 60_000 }), {})).toBeNull();
		expect(autoLeave(inCall({ silentMs: 1_499 }), { silence_timeout: 1_500 })).toBeNull();
		expect(autoLeave(inCall({ silentMs: 1_500 }), { silence_timeout: 1_500 })).toMatchObject({
			status: "completed",
			completion_reason: "stopped",
			reason: "silence_timeout: no one spoke for 1.5 s",
		});
	});

	it("applies nothing before admission but the lobby wait and the time cap", () => {
		expect(autoLeave({ sinceStartMs: 60_000, inLobbyMs: null, call: null }, { no_one_joined_timeout: 1, silence_timeout: 1 })).toBeNull();
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
		// Names the Worker's guard calls private by name (no dot) are judged here by what they resolve to.
		await expect(admit("http://whisper:9000/", named, "the transcription endpoint")).resolves.toMatchObject({ address: "10.0.0.5" });
		await expect(admit("http://vm:80/", named, "the avatar URL")).rejects.toThrow("the avatar URL resolves to a private address");
		await expect(admit("http://metadata/", named, "the avatar URL")).rejects.toThrow("cloud metadata endpoints are never allowed");
	});
});
