import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { speechProvider } from "../../../src/bots/speech-provider";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { SimulatedBot, spawnRequestFor } from "../meetings/bot-sim";
import { call, json, userWithKey } from "../support";
import { received, script, serve } from "../webhooks/receiver";

/** A user with an active bot on a fresh link, played by a simulated bot. */
async function activeBot(options: Record<string, unknown> = {}) {
	const { headers, user } = await userWithKey();
	const code = meetCode();
	const meeting = await json<{ id: number }>(
		await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: code, ...options } }),
	);
	const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
	await bot.status("active");
	const base = `/bots/google_meet/${code}`;
	return { headers, user, code, meeting, bot, base };
}

async function lastAct(bot: SimulatedBot, count: number) {
	return eventually(`${count} commands`, () => {
		const commands = bot.commands();
		return commands.length >= count ? commands[count - 1] : undefined;
	});
}

describe("interactive actions relay to the live bot", () => {
	it("sends speak, speak stop, chat, screen and avatar commands and acknowledges each with 202", async () => {
		const { headers, meeting, bot, base } = await activeBot();
		const cases: [string, string, Record<string, unknown> | undefined, string, Record<string, unknown>][] = [
			[
				"POST",
				"speak",
				{ text: "Hello from the bot", voice: "nova" },
				"Speak command sent",
				{ action: "speak", text: "Hello from the bot", voice: "nova" },
			],
			["POST", "speak", { audio_base64: "UklGRg==" }, "Speak command sent", { action: "speak_audio", audioBase64: "UklGRg==" }],
			["DELETE", "speak", undefined, "Speak stop command sent", { action: "speak_stop" }],
			["POST", "chat", { text: "Notes are in the doc" }, "Chat message sent", { action: "chat_send", text: "Notes are in the doc" }],
			[
				"POST",
				"screen",
				{ type: "html", html: "<h1>Agenda</h1>" },
				"Screen content command sent",
				{ action: "screen_show", content_type: "html", html: "<h1>Agenda</h1>" },
			],
			[
				"POST",
				"screen",
				{ type: "image", url: "https://images.example.com/slide.png" },
				"Screen content command sent",
				{ action: "screen_show", content_type: "image", url: "https://images.example.com/slide.png" },
			],
			["DELETE", "screen", undefined, "Screen stop command sent", { action: "screen_stop" }],
			[
				"PUT",
				"avatar",
				{ url: "https://images.example.com/me.png" },
				"Avatar set command sent",
				{ action: "avatar_set", url: "https://images.example.com/me.png" },
			],
			["DELETE", "avatar", undefined, "Avatar reset command sent", { action: "avatar_reset" }],
		];
		let n = 0;
		for (const [method, action, body, message, act] of cases) {
			const res = await call(method, `${base}/${action}`, { headers, json: body });
			expect(res.status, `${method} ${action}`).toBe(202);
			// Content for the screen also says how it is planned to reach the meeting (screen-share.test.ts).
			const plan = method === "POST" && action === "screen" ? { presented_as: "screen_share" } : {};
			expect(await res.json()).toEqual({ message, meeting_id: meeting.id, ...plan });
			n += 1;
			expect(await lastAct(bot, n)).toMatchObject({ type: "command", act });
		}
	});

	it("answers the documented detail (docs/api.md) for each malformed action and sends nothing", async () => {
		const { headers, bot, base } = await activeBot();
		const cases: [string, string, Record<string, unknown>, string][] = [
			["POST", "speak", {}, "Must provide one of: text, audio_url, or audio_base64"],
			["POST", "speak", { text: "a", audio_base64: "AA==" }, "Must provide one of: text, audio_url, or audio_base64"],
			["POST", "speak", { text: "a", voice: 7 }, "voice must be a string"],
			["POST", "speak", { text: "a", voice: "v".repeat(101) }, "voice must be at most 100 characters"],
			["POST", "chat", {}, "text is required"],
			["POST", "screen", { type: "pdf", url: "https://x.example.com/a.pdf" }, "type must be one of: image, video, url, html"],
			["POST", "screen", { type: "url" }, "url is required"],
			["PUT", "avatar", {}, "Either 'url' or 'image_base64' must be provided"],
		];
		for (const [method, action, body, detail] of cases) {
			const res = await call(method, `${base}/${action}`, { headers, json: body });
			expect(res.status, `${action} ${JSON.stringify(body)}`).toBe(422);
			expect(await res.json()).toEqual({ detail });
		}
		const blocked = await call("POST", `${base}/speak`, { headers, json: { audio_url: "http://169.254.169.254/latest/meta-data" } });
		expect(blocked.status).toBe(422);
		expect(bot.commands()).toHaveLength(0);
	});

	it("answers 404 with the documented detail when no meeting is active on the link", async () => {
		const { headers } = await userWithKey();
		for (const [method, action] of [
			["POST", "speak"],
			["POST", "chat"],
			["GET", "chat"],
			["PUT", "avatar"],
			["DELETE", "screen"],
		] as const) {
			const res = await call(method, `/bots/zoom/85512345678/${action}`, {
				headers,
				json: method === "GET" || method === "DELETE" ? undefined : { text: "x" },
			});
			expect(res.status).toBe(404);
			expect(await res.json()).toEqual({ detail: "No active meeting found for zoom/85512345678" });
		}
	});

	it("accepts start_share false: the bot loads the content, and {start_share: true} alone shows it", async () => {
		const { headers, meeting, bot, base } = await activeBot();
		const later = { type: "url", url: "https://slides.example.com/deck", start_share: false };
		const res = await call("POST", `${base}/screen`, { headers, json: later });
		expect(res.status).toBe(202);
		expect(await res.json()).toEqual({ message: "Screen content command sent", meeting_id: meeting.id, presented_as: "screen_share" });
		expect(await lastAct(bot, 1)).toMatchObject({
			act: { action: "screen_show", content_type: "url", url: "https://slides.example.com/deck", start: false },
		});
		const start = await call("POST", `${base}/screen`, { headers, json: { start_share: true } });
		expect(start.status).toBe(202);
		expect(await lastAct(bot, 2)).toMatchObject({ act: { action: "screen_start" } });
		// start_share true with content shows it at once, as before; the field stays a boolean.
		await call("POST", `${base}/screen`, { headers, json: { type: "html", html: "<p>now</p>", start_share: true } });
		const now = await lastAct(bot, 3);
		expect(now).toMatchObject({ act: { action: "screen_show", content_type: "html", html: "<p>now</p>" } });
		expect(now?.type === "command" && now.act).not.toHaveProperty("start");
		for (const [body, detail] of [
			[{ type: "html", html: "<p>x</p>", start_share: "no" }, "start_share must be a boolean"],
			[{}, "type must be one of: image, video, url, html"],
			[{ start_share: false }, "type must be one of: image, video, url, html"],
		] as const) {
			const bad = await call("POST", `${base}/screen`, { headers, json: body });
			expect(bad.status, JSON.stringify(body)).toBe(422);
			expect(await bad.json()).toEqual({ detail });
		}
		expect(bot.commands()).toHaveLength(3);
	});

	it("refuses actions for a bot started with voice_agent_enabled false", async () => {
		const { headers, base, bot } = await activeBot({ voice_agent_enabled: false });
		const res = await call("POST", `${base}/chat`, { headers, json: { text: "hi" } });
		expect(res.status).toBe(403);
		expect(bot.commands()).toHaveLength(0);
	});

	it("lists the meeting chat the bot saw", async () => {
		const { headers, meeting, bot, base } = await activeBot();
		await bot.send({ type: "chat", message: { sender: "Dana", text: "agenda?", timestamp: 1_700_000_000_123, is_from_bot: false } });
		await bot.send({ type: "chat", message: { sender: "Notetaker", text: "here", timestamp: 1_700_000_000_456, is_from_bot: true } });
		const res = await call("GET", `${base}/chat`, { headers });
		expect(await res.json()).toEqual({
			meeting_id: meeting.id,
			messages: [
				{ sender: "Dana", text: "agenda?", timestamp: 1_700_000_000_123, is_from_bot: false },
				{ sender: "Notetaker", text: "here", timestamp: 1_700_000_000_456, is_from_bot: true },
			],
		});
	});

	it("speaks through an OpenAI-compatible speech endpoint with the account's key, sending the bot audio only", async () => {
		const { headers, bot, base } = await activeBot();
		const tts = `/tts/${crypto.randomUUID()}`;
		const modelKey = "sk-speech-key-0000111122223333";
		await call("PUT", "/user/models", { headers, json: { base_url: `${env.WEBHOOK_RECEIVER_URL}${tts}`, api_key: modelKey } });
		await script(`${tts}/v1/audio/speech`, [{ status: 200, body: "RIFF-audio-bytes" }]);
		const res = await call("POST", `${base}/speak`, { headers, json: { text: "Summary ready", voice: "onyx", provider: "openai" } });
		expect(res.status).toBe(202);
		const [request] = await received(`${tts}/v1/audio/speech`);
		expect(request?.headers.authorization).toBe(`Bearer ${modelKey}`);
		expect(JSON.parse(request?.body ?? "{}")).toMatchObject({ input: "Summary ready", voice: "onyx", response_format: "wav" });
		const command = await lastAct(bot, 1);
		// The text rides with the audio, so the bot's speak.started can say what it is saying.
		expect(command).toMatchObject({
			act: { action: "speak_audio", audioBase64: btoa("RIFF-audio-bytes"), text: "Summary ready", provider: "openai" },
		});
		expect(JSON.stringify(bot.channel.messages)).not.toContain(modelKey);
	});

	it("takes any voice, auto by default, and each provider speaks one it does not have with its default voice", async () => {
		const { headers, bot, base } = await activeBot();
		// The reference's SpeakRequest: `voice` any string, default `auto` (its acts.v1 golden sends `en-US-1`).
		for (const voice of [undefined, null, "en-US-1", "fr"]) {
			const res = await call("POST", `${base}/speak`, { headers, json: { text: `in ${voice}`, voice } });
			expect(res.status, String(voice)).toBe(202);
		}
		await lastAct(bot, 4);
		// The bot host maps the name to an espeak-ng voice, its default for one espeak-ng does not have (bot-host/test/tts.test.ts).
		expect(bot.commands().map((c) => c.type === "command" && c.act)).toEqual([
			{ action: "speak", text: "in undefined", voice: "auto" },
			{ action: "speak", text: "in null", voice: "auto" },
			{ action: "speak", text: "in en-US-1", voice: "en-US-1" },
			{ action: "speak", text: "in fr", voice: "fr" },
		]);
		// An OpenAI-compatible endpoint is asked for one of its voices: a name it has not is its default, alloy.
		const tts = `/tts/${crypto.randomUUID()}`;
		await call("PUT", "/user/models", {
			headers,
			json: { base_url: `${env.WEBHOOK_RECEIVER_URL}${tts}`, api_key: "sk-voice-key-00001111" },
		});
		await script(`${tts}/v1/audio/speech`, [
			{ status: 200, body: "RIFF-1" },
			{ status: 200, body: "RIFF-2" },
			{ status: 200, body: "RIFF-3" },
		]);
		for (const voice of ["en-US-1", undefined, "Nova"]) {
			const res = await call("POST", `${base}/speak`, { headers, json: { text: "Summary ready", voice, provider: "openai" } });
			expect(res.status, String(voice)).toBe(202);
		}
		const asked = (await received(`${tts}/v1/audio/speech`)).map((r) => JSON.parse(r.body).voice);
		expect(asked).toEqual(["alloy", "alloy", "nova"]);
	});

	it("takes any provider name, and speaks with the deployment's provider for one it does not have", async () => {
		const { headers, bot, base } = await activeBot();
		for (const provider of ["piper", "elevenlabs", "", null]) {
			const res = await call("POST", `${base}/speak`, { headers, json: { text: `with ${provider}`, provider } });
			expect(res.status, String(provider)).toBe(202);
		}
		await lastAct(bot, 4);
		expect(bot.commands().map((c) => c.type === "command" && c.act)).toEqual([
			{ action: "speak", text: "with piper", voice: "auto" },
			{ action: "speak", text: "with elevenlabs", voice: "auto" },
			{ action: "speak", text: "with ", voice: "auto" },
			{ action: "speak", text: "with null", voice: "auto" },
		]);
		// The provider is named, not guessed: a provider that is no string is still refused.
		const bad = await call("POST", `${base}/speak`, { headers, json: { text: "hi", provider: 42 } });
		expect(bad.status).toBe(422);
		expect(await bad.json()).toEqual({ detail: "provider must be a string" });
		// A known name is matched whatever its case; with no model configured the openai provider says what it needs.
		const openai = await call("POST", `${base}/speak`, { headers, json: { text: "hi", provider: "OpenAI" } });
		expect(openai.status).toBe(422);
		expect(await openai.json()).toEqual({ detail: "The openai speech provider needs a model base_url (PUT /user/models)" });
		expect(bot.commands()).toHaveLength(4);
	});

	it("falls back to DEFAULT_SPEECH_PROVIDER for an unknown name, and to espeak when that is unknown too", () => {
		const withDefault = (value: string | undefined) => ({ ...env, DEFAULT_SPEECH_PROVIDER: value });
		expect(speechProvider(withDefault("openai"), "piper")).toBe("openai");
		expect(speechProvider(withDefault("openai"), "espeak")).toBe("espeak");
		expect(speechProvider(withDefault("openai"), undefined)).toBe("openai");
		expect(speechProvider(withDefault("festival"), "piper")).toBe("espeak");
		expect(speechProvider(withDefault(undefined), " OPENAI ")).toBe("openai");
	});

	it("never sends the deployment's model key to a base_url the account chose: that call goes without a key", async () => {
		const deploymentKey = env.DEFAULT_MODEL_API_KEY ?? "";
		expect(deploymentKey).not.toBe("");
		const { headers, bot, base } = await activeBot();
		const tts = `/tts/${crypto.randomUUID()}`;
		await call("PUT", "/user/models", { headers, json: { base_url: `${env.WEBHOOK_RECEIVER_URL}${tts}` } });
		await script(`${tts}/v1/audio/speech`, [{ status: 200, body: "RIFF-audio-bytes" }]);
		const res = await call("POST", `${base}/speak`, { headers, json: { text: "Summary ready", provider: "openai" } });
		expect(res.status).toBe(202);
		const requests = await received(`${tts}/v1/audio/speech`);
		expect(requests).toHaveLength(1);
		expect(requests[0]?.headers).not.toHaveProperty("authorization");
		expect(JSON.stringify(requests).includes(deploymentKey)).toBe(false);
		expect(await lastAct(bot, 1)).toMatchObject({ act: { action: "speak_audio", audioBase64: btoa("RIFF-audio-bytes") } });
	});

	it("does not follow a speech provider's redirect: 502 naming it, the bot gets nothing", async () => {
		const { headers, bot, base } = await activeBot();
		const tts = `/tts/${crypto.randomUUID()}`;
		const elsewhere = `/tts-internal/${crypto.randomUUID()}`;
		await call("PUT", "/user/models", { headers, json: { base_url: `${env.WEBHOOK_RECEIVER_URL}${tts}`, api_key: "sk-redirected-key" } });
		await script(`${tts}/v1/audio/speech`, [{ status: 307, headers: { location: `${env.WEBHOOK_RECEIVER_URL}${elsewhere}` } }]);
		const res = await call("POST", `${base}/speak`, { headers, json: { text: "hi", provider: "openai" } });
		expect(res.status).toBe(502);
		expect(((await res.json()) as { detail: string }).detail).toBe("The speech provider answered a redirect (307), which is not followed");
		expect(await received(elsewhere)).toEqual([]);
		expect(bot.commands()).toHaveLength(0);
	});

	it("stops reading speech audio past 10 MB: 502 naming the limit, the bot gets nothing", async () => {
		const { headers, bot, base } = await activeBot();
		const tts = `/tts/${crypto.randomUUID()}`;
		await call("PUT", "/user/models", { headers, json: { base_url: `${env.WEBHOOK_RECEIVER_URL}${tts}`, api_key: "sk-big-audio-key" } });
		await serve(`${tts}/v1/audio/speech`, new Uint8Array(10 * 1024 * 1024 + 1), "audio/wav");
		const res = await call("POST", `${base}/speak`, { headers, json: { text: "hi", provider: "openai" } });
		expect(res.status).toBe(502);
		expect(((await res.json()) as { detail: string }).detail).toBe("The speech provider's audio is larger than 10 MB");
		expect(bot.commands()).toHaveLength(0);
	});
});
