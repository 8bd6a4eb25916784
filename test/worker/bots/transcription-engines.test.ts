/**
 * Choosing a bot's transcription engine (docs/api.md#transcription-engines): the bot's
 * `transcription_engine`, else the account's (`PUT /user/transcription` `engine`, its `token` that
 * provider's key, sealed), else the deployment's `TRANSCRIPTION_ENGINE`; a 422 naming what to set
 * when the chosen engine has no key or endpoint; the meeting's `data.transcription_engine`; and
 * the spawn the bot host gets: the engine and the Worker's streaming relay, never a provider key.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { meetCode } from "../../shared/meetings";
import { SimulatedBot, spawnRequestFor } from "../meetings/bot-sim";
import { getMeeting, postBotsWith, sendBot } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";

const DEEPGRAM_KEY = "dg-account-key-0123456789abcdef";

interface Meeting {
	id: number;
	data: Record<string, unknown>;
}

describe("the account's engine", () => {
	it("is set with PUT /user/transcription, answered by GET, its key sealed at rest and masked on the way out", async () => {
		const { user, headers } = await userWithKey();
		const put = await call("PUT", "/user/transcription", { headers, json: { engine: "deepgram", token: DEEPGRAM_KEY } });
		expect(put.status).toBe(200);
		const answered = await json(put);
		expect(answered).toMatchObject({ engine: "deepgram", url: null, token_set: true, token: "****cdef" });
		expect(JSON.stringify(answered)).not.toContain(DEEPGRAM_KEY);
		expect(await json(await call("GET", "/user/transcription", { headers }))).toMatchObject({ engine: "deepgram", token: "****cdef" });
		const row = await env.DB.prepare("SELECT transcription_engine, transcription_token_sealed FROM account_settings WHERE user_id = ?")
			.bind(user.id)
			.first<{ transcription_engine: string; transcription_token_sealed: string }>();
		expect(row?.transcription_engine).toBe("deepgram");
		expect(row?.transcription_token_sealed).toMatch(/^v1\./);
		expect(row?.transcription_token_sealed).not.toContain(DEEPGRAM_KEY);
		// null goes back to the deployment's engine; the key stays until cleared.
		expect(await json(await call("PUT", "/user/transcription", { headers, json: { engine: null } }))).toMatchObject({
			engine: null,
			token_set: true,
		});
	});

	it("refuses an engine it does not know with 422", async () => {
		const { headers } = await userWithKey();
		const res = await call("PUT", "/user/transcription", { headers, json: { engine: "whisperx" } });
		expect(res.status).toBe(422);
		expect(JSON.stringify(await json(res))).toContain("engine");
	});
});

describe("a bot's engine", () => {
	it("streams through the Worker's relay with the account's provider key, which the spawn never holds", async () => {
		const { headers } = await userWithKey();
		await call("PUT", "/user/transcription", { headers, json: { engine: "deepgram", token: DEEPGRAM_KEY } });
		const meeting = await sendBot(headers, meetCode());
		expect(meeting.data).toMatchObject({ transcription_engine: "deepgram" });
		const spawn = await spawnRequestFor(meeting.id);
		expect(spawn.engine).toBe("deepgram");
		expect(spawn.transcription).toBeNull();
		expect(spawn.transcription_stream).toEqual({
			url: `wss://gateway.test/internal/bot-channel/${meeting.id}/transcription/stream`,
			token: spawn.channel.token,
		});
		expect(JSON.stringify(spawn)).not.toContain(DEEPGRAM_KEY);
	});

	it("is the bot's own choice over the account's, and the account's over the deployment's", async () => {
		const { headers } = await userWithKey();
		await call("PUT", "/user/transcription", { headers, json: { engine: "deepgram", token: DEEPGRAM_KEY } });
		const deployment = { TRANSCRIPTION_ENGINE: "assemblyai", ASSEMBLYAI_API_KEY: "aai-deployment-key" };
		const byAccount = await json<Meeting>(await postBotsWith(deployment, headers, {}));
		expect(byAccount.data.transcription_engine).toBe("deepgram");
		const byBot = await json<Meeting>(await postBotsWith(deployment, headers, { transcription_engine: "captions" }));
		expect(byBot.data.transcription_engine).toBe("captions");
		const captionsSpawn = await spawnRequestFor(byBot.id);
		expect(captionsSpawn).toMatchObject({ engine: "captions", transcription: null, transcription_stream: null });

		const { headers: other } = await userWithKey();
		const byDeployment = await postBotsWith(deployment, other, {});
		expect(byDeployment.status).toBe(201);
		const meeting = await json<Meeting>(byDeployment);
		expect(meeting.data.transcription_engine).toBe("assemblyai");
		expect(JSON.stringify(await spawnRequestFor(meeting.id))).not.toContain("aai-deployment-key");
	});

	it("keeps an account with its own endpoint URL and no engine on openai, as before engines could be chosen", async () => {
		const { headers } = await userWithKey();
		await call("PUT", "/user/transcription", { headers, json: { url: `${env.WEBHOOK_RECEIVER_URL}/stt/v1`, token: "stt-token" } });
		const meeting = await sendBot(headers, meetCode());
		expect(meeting.data).toMatchObject({ transcription_engine: "openai" });
		const spawn = await spawnRequestFor(meeting.id);
		expect(spawn).toMatchObject({ engine: "openai", transcription_stream: null });
		expect(spawn.transcription?.url).toBe(`https://gateway.test/internal/bot-channel/${meeting.id}/audio/transcriptions`);
	});

	it("is refused with 422 naming what to set when its engine has no key or endpoint anywhere, and nothing is claimed", async () => {
		const { headers } = await userWithKey();
		const cases: [string, string][] = [
			[
				"deepgram",
				'The deepgram transcription engine needs an API key from Deepgram: set `engine` "deepgram" and `token` with PUT /user/transcription, or the deployment\'s DEEPGRAM_API_KEY',
			],
			[
				"assemblyai",
				'The assemblyai transcription engine needs an API key from AssemblyAI: set `engine` "assemblyai" and `token` with PUT /user/transcription, or the deployment\'s ASSEMBLYAI_API_KEY',
			],
			[
				"openai",
				"The openai transcription engine needs an endpoint: set `url` with PUT /user/transcription, or the deployment's TRANSCRIPTION_URL",
			],
		];
		for (const [engine, detail] of cases) {
			const code = meetCode();
			const res = await call("POST", "/bots", {
				headers,
				json: { platform: "google_meet", native_meeting_id: code, transcription_engine: engine },
			});
			expect(res.status, engine).toBe(422);
			expect(await json(res)).toEqual({ detail });
			const row = await env.DB.prepare("SELECT id FROM meetings WHERE native_meeting_id = ?").bind(code).first();
			expect(row).toBeNull();
		}
		// Another engine's key is not this one's: an account's Deepgram key does not open AssemblyAI.
		await call("PUT", "/user/transcription", { headers, json: { engine: "deepgram", token: DEEPGRAM_KEY } });
		const wrongKey = await call("POST", "/bots", {
			headers,
			json: { platform: "google_meet", native_meeting_id: meetCode(), transcription_engine: "assemblyai" },
		});
		expect(wrongKey.status).toBe(422);
		// A bot that does not transcribe needs no engine.
		const silent = await call("POST", "/bots", {
			headers,
			json: { platform: "google_meet", native_meeting_id: meetCode(), transcription_engine: "assemblyai", transcribe_enabled: false },
		});
		expect(silent.status).toBe(201);
		expect((await json<Meeting>(silent)).data.transcription_engine).toBeUndefined();
	});

	it("takes the deployment's key when the account names the provider without one", async () => {
		const { headers } = await userWithKey();
		await call("PUT", "/user/transcription", { headers, json: { engine: "assemblyai" } });
		expect((await postBotsWith({}, headers, {})).status).toBe(422);
		const res = await postBotsWith({ ASSEMBLYAI_API_KEY: "aai-deployment-key" }, headers, {});
		expect(res.status).toBe(201);
		expect((await json<Meeting>(res)).data.transcription_engine).toBe("assemblyai");
	});

	it("runs builtin on the bot host's speech service, which the Worker neither calls nor needs a key for", async () => {
		const { headers } = await userWithKey();
		const meeting = await sendBot(headers, meetCode(), { transcription_engine: "builtin" });
		expect(meeting.data).toMatchObject({ transcription_engine: "builtin" });
		expect(await spawnRequestFor(meeting.id)).toMatchObject({ engine: "builtin", transcription: null, transcription_stream: null });
	});

	it("that could not start on the bot is named in the meeting's record with why, while the meeting goes on from captions", async () => {
		const { headers } = await userWithKey();
		const meeting = await sendBot(headers, meetCode(), { transcription_engine: "builtin" });
		const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
		await bot.status("active");
		const at = new Date().toISOString();
		const reason = "this bot host has no speech service (SPEECH_URL)";
		await bot.send({ type: "transcription", state: "fallback", engine: "builtin", reason, timestamp: at });
		const after = await getMeeting(headers, meeting.id);
		expect(after.status).toBe("active");
		expect(after.data).toMatchObject({ transcription_engine: "builtin", transcription_fallback: { engine: "builtin", reason, at } });
	});
});
