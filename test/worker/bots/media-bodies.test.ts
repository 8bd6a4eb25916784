/**
 * Speech audio and avatar images come inline as base64: POST …/speak and PUT …/avatar take
 * bodies up to MAX_MEDIA_BODY_BYTES (16 MiB), not the 1 MiB of every other route, and what they
 * take reaches the bot over its channel intact.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_MEDIA_BODY_BYTES } from "../../../src/app";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { SimulatedBot, spawnRequestFor } from "../meetings/bot-sim";
import { sineWav } from "../recordings/wav-fixture";
import { call, json, userWithKey } from "../support";

function base64(bytes: Uint8Array): string {
	let binary = "";
	for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
	return btoa(binary);
}

async function activeBot() {
	const { headers } = await userWithKey();
	const code = meetCode();
	const meeting = await json<{ id: number }>(
		await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: code } }),
	);
	const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
	await bot.status("active");
	return { headers, bot, base: `/bots/google_meet/${code}` };
}

const actOf = async (bot: SimulatedBot, n: number) => {
	const command = await eventually(`command ${n}`, () => bot.commands()[n - 1]);
	return command.type === "command" ? command.act : null;
};

describe("inline media bodies", () => {
	it("takes a minute of 48 kHz 16-bit WAV as audio_base64 and hands the bot every byte of it", async () => {
		const { headers, bot, base } = await activeBot();
		const minute = base64(sineWav(60, 48_000));
		expect(minute.length).toBeGreaterThan(7_600_000);
		const res = await call("POST", `${base}/speak`, { headers, json: { audio_base64: minute } });
		expect(res.status).toBe(202);
		const act = await actOf(bot, 1);
		// Compared as a boolean: a diff of 7.7 MB of base64 would help nobody.
		expect(act?.action === "speak_audio" && act.audioBase64 === minute).toBe(true);
	});

	it("takes an avatar image of a few MB as image_base64", async () => {
		const { headers, bot, base } = await activeBot();
		// A PNG signature then 3 MB of pixels: the gateway checks base64, the bot sniffs the type.
		const image = new Uint8Array(3 * 1024 * 1024);
		image.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
		for (let i = 8; i < image.length; i++) image[i] = i % 251;
		const encoded = base64(image);
		const res = await call("PUT", `${base}/avatar`, { headers, json: { image_base64: encoded } });
		expect(res.status).toBe(202);
		const act = await actOf(bot, 1);
		expect(act?.action === "avatar_set" && act.image_base64 === encoded).toBe(true);
	});

	it("keeps a cap: past 16 MiB the answer is 413 with a detail, and the bot gets nothing", async () => {
		const { headers, bot, base } = await activeBot();
		expect(DEFAULT_MAX_MEDIA_BODY_BYTES).toBe(16 * 1024 * 1024);
		const tooLarge = "A".repeat(DEFAULT_MAX_MEDIA_BODY_BYTES + 1);
		for (const [method, action, body] of [
			["POST", "speak", { audio_base64: tooLarge }],
			["PUT", "avatar", { image_base64: tooLarge }],
		] as const) {
			const res = await call(method, `${base}/${action}`, { headers, json: body });
			expect(res.status, action).toBe(413);
			expect(await res.json()).toEqual({ detail: "Request body too large" });
		}
		// Every other route keeps the 1 MiB cap (MAX_BODY_BYTES).
		const chat = await call("POST", `${base}/chat`, { headers, json: { text: "x".repeat(1024 * 1024) } });
		expect(chat.status).toBe(413);
		expect(await chat.json()).toEqual({ detail: "Request body too large" });
		expect(bot.commands()).toHaveLength(0);
	});
});
