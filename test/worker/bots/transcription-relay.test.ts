/**
 * A bot's transcription through the Worker (docs/bot-channel.md#transcription): the bot posts
 * OpenAI-compatible requests with its channel token, and the Worker forwards them to the
 * account's endpoint (here the receiver, answering as a provider) with the endpoint's token,
 * which the bot host never sees.
 */
import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RoomState } from "../../../durable-objects/meeting-room";
import { ROOM_KEYS } from "../../../durable-objects/meeting-room/storage";
import type { SpawnRequest } from "../../../src/bot-channel/protocol";
import { meetCode } from "../../shared/meetings";
import { SimulatedBot, spawnRequestFor } from "../meetings/bot-sim";
import { swapEnv } from "../meetings/broken-env";
import { postBotsWith, sendBot } from "../meetings/helpers";
import { sineWav } from "../recordings/wav-fixture";
import { call, json, roomOf, throughWorker, userWithKey } from "../support";
import { received, script } from "../webhooks/receiver";

const ACCOUNT_TOKEN = "account-stt-token-0123456789";

/** An OpenAI-style verbose_json answer. */
const ANSWER = {
	task: "transcribe",
	language: "english",
	duration: 0.5,
	text: "hello there",
	segments: [{ id: 0, start: 0, end: 0.5, text: " hello there", avg_logprob: -0.1, no_speech_prob: 0.01 }],
};

/** A provider path on the receiver; the Worker calls `<base>/audio/transcriptions` under it. */
function provider() {
	const base = `/stt/${crypto.randomUUID()}/v1`;
	return { url: `${env.WEBHOOK_RECEIVER_URL}${base}`, path: `${base}/audio/transcriptions` };
}

/** The multipart body the bot's transcriber sends (bot-host/bot/transcription/openai.ts); `audio` is its WAV file. */
function transcriptionForm(audio: Uint8Array = sineWav(0.5)): FormData {
	const form = new FormData();
	form.set("file", new Blob([audio], { type: "audio/wav" }), "audio.wav");
	form.set("model", "whisper-1");
	form.set("response_format", "verbose_json");
	form.append("timestamp_granularities[]", "segment");
	// A bot with a vocabulary sends it as whisper's prompt (bot-host/bot/transcription/vocabulary.ts).
	form.set("prompt", "Glossary: Siobhán O'Neill, Kubernetes operator.");
	return form;
}

function transcribe(spawn: Pick<SpawnRequest, "transcription">, token: string | null, form: BodyInit = transcriptionForm()) {
	const url = spawn.transcription?.url ?? "https://gateway.test/none";
	return SELF.fetch(url, { method: "POST", headers: token ? { authorization: `Bearer ${token}` } : {}, body: form });
}

/** A user whose transcription endpoint is a fresh provider path, and their bot's spawn request. */
async function botWithEndpoint(token: string | null = ACCOUNT_TOKEN) {
	const { headers } = await userWithKey();
	const stt = provider();
	const put = await call("PUT", "/user/transcription", { headers, json: { url: stt.url, ...(token ? { token } : {}) } });
	expect(put.status).toBe(200);
	const meeting = await sendBot(headers, meetCode());
	const spawn = await spawnRequestFor(meeting.id);
	return { headers, stt, meeting, spawn };
}

describe("the transcription relay", () => {
	it("forwards the bot's request to the account's endpoint with the account's token and passes the answer back", async () => {
		const { stt, spawn } = await botWithEndpoint();
		await script(stt.path, [{ status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(ANSWER) }]);
		const res = await transcribe(spawn, spawn.channel.token);
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual(ANSWER);
		const [forwarded, ...more] = await received(stt.path);
		expect(more).toEqual([]);
		expect(forwarded?.method).toBe("POST");
		expect(forwarded?.headers.authorization).toBe(`Bearer ${ACCOUNT_TOKEN}`);
		expect(String(forwarded?.headers["content-type"])).toMatch(/^multipart\/form-data; ?boundary=/);
		// The form as the bot sent it: the audio and the fields its transcriber relies on.
		for (const part of [
			'name="file"; filename="audio.wav"',
			"verbose_json",
			'name="timestamp_granularities[]"',
			"RIFF",
			'name="prompt"',
			"Glossary: Siobhán O'Neill, Kubernetes operator.",
		]) {
			expect(forwarded?.body).toContain(part);
		}
		expect(forwarded?.body).not.toContain(spawn.channel.token);
	});

	it("refuses a missing or wrong token, or another meeting's, with 401, and reaches no provider", async () => {
		const { stt, spawn } = await botWithEndpoint();
		const other = await botWithEndpoint();
		for (const token of [null, "garbage", other.spawn.channel.token, `${spawn.channel.token}x`]) {
			const res = await transcribe(spawn, token);
			expect(res.status, String(token)).toBe(401);
			const text = await res.text();
			expect(JSON.parse(text)).toEqual({ detail: "Invalid bot channel token" });
			expect(text).not.toContain(ACCOUNT_TOKEN);
		}
		expect(await received(stt.path)).toEqual([]);
		expect(await received(other.stt.path)).toEqual([]);
	});

	it("never hands the token back: not in an echoing answer, not in an error, not across a redirect", async () => {
		const { stt, spawn } = await botWithEndpoint();
		const elsewhere = provider();
		await script(stt.path, [
			{ status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ text: `Bearer ${ACCOUNT_TOKEN}` }) },
			{ status: 401, body: `bad token ${ACCOUNT_TOKEN}` },
			{ status: 307, headers: { location: `${elsewhere.url}/audio/transcriptions` } },
		]);
		const echoed = await transcribe(spawn, spawn.channel.token);
		expect(echoed.status).toBe(200);
		expect(await echoed.json()).toEqual({ text: "Bearer [redacted]" });
		const refused = await transcribe(spawn, spawn.channel.token);
		expect(refused.status).toBe(502);
		expect(await refused.json()).toEqual({ detail: "The transcription endpoint answered 401" });
		const redirected = await transcribe(spawn, spawn.channel.token);
		expect(redirected.status).toBe(502);
		expect(await redirected.json()).toEqual({ detail: "The transcription endpoint answered a redirect (307), which is not followed" });
		expect(await received(stt.path)).toHaveLength(3);
		expect(await received(elsewhere.path)).toEqual([]);
	});

	it("gives an account's own URL no deployment token, and the deployment's URL the deployment's token", async () => {
		const bare = await botWithEndpoint(null);
		await transcribe(bare.spawn, bare.spawn.channel.token);
		const [toAccount] = await received(bare.stt.path);
		expect(toAccount).toBeDefined();
		expect(toAccount?.headers.authorization).toBeUndefined();

		// A deployment endpoint: an account without one of its own uses it, with TRANSCRIPTION_TOKEN.
		const deployment = provider();
		const withDeployment = { TRANSCRIPTION_URL: deployment.url };
		const { headers } = await userWithKey();
		const started = await postBotsWith(withDeployment, headers);
		expect(started.status).toBe(201);
		const spawn = await spawnRequestFor((await json<{ id: number }>(started)).id);
		expect(JSON.stringify(spawn)).not.toContain(String(env.TRANSCRIPTION_TOKEN));
		const url = spawn.transcription?.url ?? "";
		const relayed = await throughWorker(
			new Request(url, { method: "POST", headers: { authorization: `Bearer ${spawn.channel.token}` }, body: transcriptionForm() }),
			withDeployment,
		);
		expect(relayed.status).toBe(200);
		const [toDeployment] = await received(deployment.path);
		expect(toDeployment?.headers.authorization).toBe(`Bearer ${env.TRANSCRIPTION_TOKEN}`);
	});

	it("refuses once the meeting has ended, and a body that is not a form or is too large, reaching no provider", async () => {
		const { headers, stt, spawn, meeting } = await botWithEndpoint();
		const plain = await transcribe(spawn, spawn.channel.token, JSON.stringify({ file: "x" }));
		expect(plain.status).toBe(415);
		expect(await plain.json()).toEqual({ detail: "The body must be multipart/form-data" });
		const huge = transcriptionForm();
		huge.set("file", new Blob([new Uint8Array(1_100_000)], { type: "audio/wav" }), "audio.wav");
		expect((await transcribe(spawn, spawn.channel.token, huge)).status).toBe(413);
		expect((await call("DELETE", `/bots/google_meet/${meeting.native_meeting_id}`, { headers })).status).toBe(204);
		const ended = await transcribe(spawn, spawn.channel.token);
		expect(ended.status).toBe(409);
		expect(await ended.json()).toEqual({ detail: "The meeting is not live" });
		expect(await received(stt.path)).toEqual([]);
	});

	it("judges the account's address again at every call: one the guard now refuses is not called", async () => {
		const { user, headers } = await userWithKey();
		await call("PUT", "/user/transcription", { headers, json: { url: provider().url, token: ACCOUNT_TOKEN } });
		const spawn = await spawnRequestFor((await sendBot(headers, meetCode())).id);
		// Written around the route after the launch (the guard's rules changed, or a row was edited).
		await env.DB.prepare("UPDATE account_settings SET transcription_url = ? WHERE user_id = ?")
			.bind("http://169.254.169.254/latest", user.id)
			.run();
		const res = await transcribe(spawn, spawn.channel.token);
		expect(res.status).toBe(422);
		const { detail } = await json<{ detail: string }>(res);
		expect(detail).toMatch(/^The transcription endpoint is not allowed: .*metadata/);
		expect(detail).not.toContain(ACCOUNT_TOKEN);
	});
});

/** A minute of audio in a small body: a 1 kHz WAV (2,000 bytes a second), counted by its header. */
const minute = () => transcriptionForm(sineWav(60, 1000));

const ok = () => ({ status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(ANSWER) });

describe("who may transcribe, and how much", () => {
	it("serves only the meeting's current bot: an earlier attempt's token is refused 409 and reaches no provider", async () => {
		const { stt, spawn, meeting } = await botWithEndpoint();
		const restore = await swapEnv(roomOf(meeting.id), () => ({ BOT_MAX_RESPAWNS: "1" }));
		try {
			const first = await SimulatedBot.connect(spawn);
			await first.status("active");
			// Its host is lost: the watchdog asks for attempt 2, whose bot another host claims.
			await runInDurableObject(roomOf(meeting.id), async (_room: unknown, state) => {
				const timers = (await state.storage.get<Record<string, number>>(ROOM_KEYS.timers)) ?? {};
				await state.storage.put(ROOM_KEYS.timers, { ...timers, watchdog: 0 });
				await state.storage.setAlarm(Date.now());
			});
			await runDurableObjectAlarm(roomOf(meeting.id));
			const second = await spawnRequestFor(meeting.id, 2);
			await script(stt.path, [ok()]);
			const replaced = await transcribe(spawn, spawn.channel.token);
			expect(replaced.status).toBe(409);
			expect(await replaced.json()).toEqual({ detail: "This bot was replaced: only the meeting's current bot may transcribe" });
			expect(await received(stt.path)).toEqual([]);
			const current = await transcribe(second, second.channel.token);
			expect(current.status).toBe(200);
			expect(await received(stt.path)).toHaveLength(1);
		} finally {
			await restore();
		}
	});

	it("meters a meeting's audio against the time it has been active, with 429 past it and no provider call", async () => {
		const { stt, spawn, meeting } = await botWithEndpoint();
		await script(stt.path, [ok(), ok(), ok(), ok()]);
		// Before the meeting is active, its bot has a first 120 s.
		expect((await transcribe(spawn, spawn.channel.token, minute())).status).toBe(200);
		expect((await transcribe(spawn, spawn.channel.token, minute())).status).toBe(200);
		const over = await transcribe(spawn, spawn.channel.token, minute());
		expect(over.status).toBe(429);
		expect(await over.json()).toEqual({ detail: "This meeting's bot has sent 120 s of audio to transcribe in 0 s active: no more now" });
		expect(await received(stt.path)).toHaveLength(2);
		// Active for 10 s: at the default ratio of 10, 100 s more.
		const bot = await SimulatedBot.connect(spawn);
		await bot.status("active");
		await runInDurableObject(roomOf(meeting.id), async (_room: unknown, state) => {
			const room = await state.storage.get<RoomState>(ROOM_KEYS.state);
			await state.storage.put(ROOM_KEYS.state, { ...room, startTime: new Date(Date.now() - 10_000).toISOString() });
		});
		expect((await transcribe(spawn, spawn.channel.token, minute())).status).toBe(200);
		expect((await transcribe(spawn, spawn.channel.token, minute())).status).toBe(429);
		expect(await received(stt.path)).toHaveLength(3);
	});

	it("meters an account's audio per UTC day (TRANSCRIPTION_RELAY_DAILY_SECONDS), shown in GET /user/transcription", async () => {
		const { headers, stt, spawn } = await botWithEndpoint();
		await script(stt.path, [ok(), ok()]);
		const relay = (form: FormData) =>
			throughWorker(
				new Request(spawn.transcription?.url ?? "", {
					method: "POST",
					headers: { authorization: `Bearer ${spawn.channel.token}` },
					body: form,
				}),
				{ TRANSCRIPTION_RELAY_DAILY_SECONDS: "100" },
			);
		expect((await relay(minute())).status).toBe(200);
		const over = await relay(minute());
		expect(over.status).toBe(429);
		expect(await over.json()).toEqual({
			detail: "The account has sent its 100 s of audio to transcribe for today (UTC); it can send more tomorrow",
		});
		expect(await received(stt.path)).toHaveLength(1);
		const shown = await json<{ usage: unknown }>(await call("GET", "/user/transcription", { headers }));
		expect(shown.usage).toEqual({ day: new Date().toISOString().slice(0, 10), relayed_seconds: 60, daily_limit_seconds: 864_000 });
	});

	it("counts a file that is no WAV, or whose header claims a fast rate, by its bytes at 48 kHz stereo", async () => {
		const { headers, stt, spawn } = await botWithEndpoint();
		await script(stt.path, [ok(), ok()]);
		const forged = sineWav(1, 16_000);
		new DataView(forged.buffer).setUint32(24, 4_000_000_000, true);
		expect((await transcribe(spawn, spawn.channel.token, transcriptionForm(forged))).status).toBe(200);
		expect((await transcribe(spawn, spawn.channel.token, transcriptionForm(new Uint8Array(192_000)))).status).toBe(200);
		const shown = await json<{ usage: { relayed_seconds: number } }>(await call("GET", "/user/transcription", { headers }));
		expect(shown.usage.relayed_seconds).toBe(1.2);
		const noFile = new FormData();
		noFile.set("model", "whisper-1");
		const refused = await transcribe(spawn, spawn.channel.token, noFile);
		expect(refused.status).toBe(422);
		expect(await refused.json()).toEqual({ detail: "The form has no audio `file`" });
	});
});
