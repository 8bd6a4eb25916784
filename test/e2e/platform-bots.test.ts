import { describe, expect, it } from "vitest";
import { wavHeader } from "../../bot-host/bot/wav.ts";
import { eventually } from "../shared/wait";
import { apiAt, botGateway, nativeId, newAccount, Socket, sandboxObserved, sandboxScenario, wsUrl } from "./client";

type Platform = "google_meet" | "zoom" | "teams";

async function sendBot(key: string, platform: Platform, id: string, extra: Record<string, unknown> = {}) {
	const res = await apiAt(botGateway(), "POST", "/bots", {
		key,
		json: { platform, native_meeting_id: id, bot_name: "E2E Notetaker", ...extra },
	});
	expect(res.status).toBe(201);
	return res.body.id as number;
}

async function meetingOf(key: string, id: number) {
	return (await apiAt(botGateway(), "GET", `/meetings/${id}`, { key })).body as {
		status: string;
		completion_reason: string | null;
		failure_stage: string | null;
	};
}

async function ended(key: string, id: number, ms = 60_000) {
	return eventually(
		"the meeting to end",
		async () => {
			const m = await meetingOf(key, id);
			return m.status === "completed" || m.status === "failed" ? m : undefined;
		},
		ms,
	);
}

/** A PCM16 mono WAV of a 440 Hz tone: what a client would send as audio_base64. */
function toneWav(seconds: number, sampleRate: number): Buffer {
	const samples = Buffer.alloc(seconds * sampleRate * 2);
	for (let i = 0; i < seconds * sampleRate; i++)
		samples.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / sampleRate) * 12_000), i * 2);
	return Buffer.concat([wavHeader(samples.length, sampleRate), samples]);
}

const statuses = (live: Socket) =>
	live.messages.filter((m) => m.type === "meeting.status").map((m) => (m.payload as { status: string }).status);

describe.each(["google_meet", "zoom", "teams"] as Platform[])("a real bot in a %s sandbox meeting", (platform) => {
	it("waits in the lobby, is admitted, transcribes two speakers live on /ws, stops, and keeps the transcript", async () => {
		const { key } = await newAccount(botGateway());
		const id = nativeId(platform);
		await sandboxScenario(id, {
			admit_after_ms: 1500,
			participants: [
				{ name: "Alice Chen", lines: ["Good morning everyone, the budget is approved."] },
				{ name: "Bruno Diaz", lines: ["Great news, I will update the roadmap today."] },
			],
			speech_start_ms: 800,
			speech_gap_ms: 600,
		});
		const meetingId = await sendBot(key, platform, id);
		const live = await Socket.open(wsUrl("/ws", botGateway()), { "X-API-Key": key });
		live.send({ action: "subscribe", meetings: [{ platform, native_id: id }] });
		await live.waitFor("subscribed", (m) => m.type === "subscribed");

		await eventually("active", () => (statuses(live).includes("active") ? true : undefined), 45_000);
		expect(statuses(live)).toContain("awaiting_admission");
		expect(statuses(live).indexOf("awaiting_admission")).toBeLessThan(statuses(live).indexOf("active"));

		const confirmedBy = (speaker: string) =>
			live.messages
				.filter((m) => m.type === "transcript" && m.speaker === speaker)
				.flatMap((m) => m.confirmed as { text: string }[])
				.map((s) => s.text)
				.join(" ");
		await eventually("both speakers confirmed", () => (confirmedBy("Alice Chen") && confirmedBy("Bruno Diaz") ? true : undefined), 45_000);
		expect(confirmedBy("Alice Chen")).toMatch(/budget is approved/i);
		expect(confirmedBy("Bruno Diaz")).toMatch(/roadmap/i);

		const observed = await sandboxObserved(id);
		expect(observed.bot_names).toEqual(["E2E Notetaker"]);
		const people = await apiAt<{ participants: { name: string }[] }>(botGateway(), "GET", `/meetings/${meetingId}/participants`, { key });
		expect(people.body.participants.map((p) => p.name)).toEqual(expect.arrayContaining(["Alice Chen", "Bruno Diaz"]));

		expect((await apiAt(botGateway(), "DELETE", `/bots/${platform}/${id}`, { key })).status).toBe(204);
		expect(await ended(key, meetingId)).toMatchObject({ status: "completed", completion_reason: "stopped" });
		const transcript = await apiAt(botGateway(), "GET", `/transcripts/${platform}/${id}`, { key });
		const segments = transcript.body.segments as { speaker: string; text: string; speaker_source: string; completed: boolean }[];
		expect(segments.filter((s) => s.completed).map((s) => s.speaker)).toEqual(expect.arrayContaining(["Alice Chen", "Bruno Diaz"]));
		// Each segment says how its speaker was decided; named speakers are never a bare guess.
		for (const s of segments) expect(["caption", "active_speaker"], `${s.speaker}: ${s.text}`).toContain(s.speaker_source);
		live.close();
	});
});

describe("how real bots end", () => {
	it.each([
		[
			"a denied bot",
			{ deny: true, deny_after_ms: 800 },
			{},
			{ status: "failed", completion_reason: "awaiting_admission_rejected", failure_stage: "awaiting_admission" },
		],
		[
			"a bot left in the lobby",
			{ lobby_forever: true },
			{ automatic_leave: { max_wait_for_admission: 3000 } },
			{ completion_reason: "awaiting_admission_timeout" },
		],
		["a removed bot", { admit_after_ms: 300, remove_after_ms: 2500 }, {}, { completion_reason: "evicted" }],
		[
			"a bot in a meeting the host ends",
			{ admit_after_ms: 300, end_after_ms: 2500 },
			{},
			{ status: "completed", completion_reason: "left_alone" },
		],
		[
			"a bot left alone",
			{ admit_after_ms: 300, participants: [{ name: "Early Leaver", leave_after_ms: 1500, lines: [] }] },
			{ automatic_leave: { max_time_left_alone: 2000 } },
			{ status: "completed", completion_reason: "left_alone" },
		],
		[
			"a bot sent to a meeting code nobody opened",
			null,
			{},
			{ status: "failed", completion_reason: "join_failure", failure_stage: "joining" },
		],
	])("ends %s with its own reason", async (_label, scenario, options, expected) => {
		const { key } = await newAccount(botGateway());
		const id = nativeId("google_meet");
		// No scenario: the sandbox, like Meet, knows no meeting under that code.
		if (scenario) await sandboxScenario(id, scenario);
		const meetingId = await sendBot(key, "google_meet", id, options);
		expect(await ended(key, meetingId)).toMatchObject(expected);
	});
});

describe("interactive actions, as the meeting saw them", () => {
	it("speaks into the microphone, chats, presents a screen share and shows an avatar on camera", async () => {
		const { key } = await newAccount(botGateway());
		const id = nativeId("google_meet");
		await sandboxScenario(id, { admit_after_ms: 200, participants: [{ name: "Host", lines: [] }] });
		const meetingId = await sendBot(key, "google_meet", id);
		await eventually("active", async () => ((await meetingOf(key, meetingId)).status === "active" ? true : undefined), 45_000);
		const live = await Socket.open(wsUrl("/ws", botGateway()), { "X-API-Key": key });
		live.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: id }] });
		await live.waitFor("subscribed", (m) => m.type === "subscribed");
		const base = `/bots/google_meet/${id}`;

		expect((await apiAt(botGateway(), "POST", `${base}/speak`, { key, json: { text: "Hello, I am taking notes today." } })).status).toBe(
			202,
		);
		await live.waitFor("speak.completed", (m) => m.type === "speak.completed", 30_000);
		expect(live.messages.find((m) => m.type === "speak.started")).toMatchObject({ text: "Hello, I am taking notes today." });
		const heard = (await sandboxObserved(id)).mic as { voiced_windows: number };
		expect(heard.voiced_windows).toBeGreaterThan(3);

		// A minute of 48 kHz 16-bit WAV as audio_base64 (7.7 MB): through the gateway, the room and
		// the bot channel to the bot, which plays it; the meeting hears it, then it is interrupted.
		const minute = toneWav(60, 48_000).toString("base64");
		expect(minute.length).toBeGreaterThan(7_600_000);
		const sent = await apiAt(botGateway(), "POST", `${base}/speak`, { key, json: { audio_base64: minute } });
		expect(sent.status).toBe(202);
		const audioStarted = (m: Record<string, unknown>) => m.type === "speak.started" && m.text === null;
		expect(await live.waitFor("speak.started for the audio", audioStarted, 30_000)).toMatchObject({ source: "base64" });
		await eventually(
			"the meeting to hear the minute of audio",
			async () => ((await sandboxObserved(id)).mic as { voiced_windows: number }).voiced_windows > heard.voiced_windows + 3 || undefined,
			30_000,
		);
		expect((await apiAt(botGateway(), "DELETE", `${base}/speak`, { key })).status).toBe(202);
		await live.waitFor("speak.interrupted", (m) => m.type === "speak.interrupted", 30_000);

		expect((await apiAt(botGateway(), "POST", `${base}/chat`, { key, json: { text: "Notes will follow by email" } })).status).toBe(202);
		await eventually("chat in the meeting", async () => {
			const chat = (await sandboxObserved(id)).chat_sent as { text: string }[];
			return chat.some((c) => c.text === "Notes will follow by email") ? true : undefined;
		});

		const html = "<body style='margin:0;background:#ff0000'><h1>Agenda</h1></body>";
		expect((await apiAt(botGateway(), "POST", `${base}/screen`, { key, json: { type: "html", html } })).status).toBe(202);
		// Meet lets a guest present: the content is a real screen share, and /ws says so.
		expect(await live.waitFor("screen.sharing_started", (m) => m.type === "screen.sharing_started", 30_000)).toMatchObject({
			presented_as: "screen_share",
		});
		const red = await eventually(
			"a red frame in the meeting's screen share",
			async () => {
				const color = ((await sandboxObserved(id)).screen as { last_color: number[] | null }).last_color;
				return color && (color[0] ?? 0) > 180 && (color[1] ?? 255) < 90 ? color : undefined;
			},
			20_000,
		);
		expect(red[0]).toBeGreaterThan(180);
		expect((await apiAt(botGateway(), "DELETE", `${base}/screen`, { key })).status).toBe(202);
		await live.waitFor("screen.sharing_stopped", (m) => m.type === "screen.sharing_stopped", 30_000);

		// A 1x1 blue PNG as the avatar.
		const bluePng = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYPgPAAEDAQAIicLsAAAAAElFTkSuQmCC";
		expect((await apiAt(botGateway(), "PUT", `${base}/avatar`, { key, json: { image_base64: bluePng } })).status).toBe(202);
		await eventually(
			"a blue frame on camera",
			async () => {
				const color = ((await sandboxObserved(id)).camera as { last_color: number[] | null }).last_color;
				return color && (color[2] ?? 0) > 180 && (color[0] ?? 255) < 90 ? color : undefined;
			},
			20_000,
		);
		await apiAt(botGateway(), "DELETE", base, { key });
		await ended(key, meetingId);
		live.close();
	});
});
