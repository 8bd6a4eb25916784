import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { meetCode } from "../../shared/meetings";
import { spawnRequestFor } from "../meetings/bot-sim";
import { call, json, userWithKey } from "../support";

async function startBot(headers: Record<string, string>) {
	const res = await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: meetCode() } });
	expect(res.status).toBe(201);
	const meeting = await json<{ id: number }>(res);
	return spawnRequestFor(meeting.id);
}

async function transcriptionRow(userId: number) {
	return env.DB.prepare("SELECT transcription_url, transcription_token_sealed FROM account_settings WHERE user_id = ?")
		.bind(userId)
		.first();
}

describe("the transcription endpoint a bot is given", () => {
	it("is the Worker's relay, never the account's URL nor any token but the bot's own channel token", async () => {
		const deploymentToken = env.TRANSCRIPTION_TOKEN ?? "";
		expect(deploymentToken).not.toBe("");
		for (const token of [undefined, "account-stt-token"]) {
			const { headers } = await userWithKey();
			const url = "https://stt.account.example.com/v1";
			expect((await call("PUT", "/user/transcription", { headers, json: { url, ...(token ? { token } : {}) } })).status).toBe(200);
			const spawn = await startBot(headers);
			expect(spawn.transcription).toEqual({
				url: `https://gateway.test/internal/bot-channel/${spawn.meeting_id}/audio/transcriptions`,
				token: spawn.channel.token,
			});
			for (const secret of [deploymentToken, "account-stt-token", url]) expect(JSON.stringify(spawn)).not.toContain(secret);
		}
	});

	it.each([
		["cloud metadata", "http://169.254.169.254/latest/meta-data/", "metadata"],
		["metadata behind a wildcard DNS name", "http://169.254.169.254.nip.io/v1", "metadata"],
		["a URL with credentials", "https://user:pw@stt.example.com/", "credentials"],
	])("refuses %s on PUT with 422 naming why, and changes nothing", async (_label, url, why) => {
		const { user, headers } = await userWithKey();
		await call("PUT", "/user/transcription", { headers, json: { url: "https://stt.kept.example.com", token: "kept-token" } });
		const before = await transcriptionRow(user.id);
		const res = await call("PUT", "/user/transcription", { headers, json: { url, token: "new-token" } });
		expect(res.status).toBe(422);
		const { detail } = await json<{ detail: { loc: string[]; msg: string }[] }>(res);
		expect(detail[0]?.loc).toEqual(["body", "url"]);
		expect(detail[0]?.msg).toContain(why === "credentials" ? "credentials" : "metadata");
		expect(await transcriptionRow(user.id)).toEqual(before);
	});

	it("drops a stored URL the guard now refuses from the spawn instead of sending it", async () => {
		const { user, headers } = await userWithKey();
		await call("PUT", "/user/transcription", { headers, json: { url: "https://stt.account.example.com", token: "account-stt-token" } });
		// Stored before the rule existed, or written around the route: the spawn is checked again.
		await env.DB.prepare("UPDATE account_settings SET transcription_url = ? WHERE user_id = ?")
			.bind("http://[fd00:ec2::254]/latest", user.id)
			.run();
		const spawn = await startBot(headers);
		expect(spawn.transcription).toBeNull();
		expect(JSON.stringify(spawn)).not.toContain("account-stt-token");
	});
});

describe("the model base URL", () => {
	it("is refused on PUT when the guard refuses it, and nothing changes", async () => {
		const { user, headers } = await userWithKey();
		await call("PUT", "/user/models", { headers, json: { base_url: "https://models.kept.example.com", api_key: "kept-key" } });
		const before = await env.DB.prepare("SELECT * FROM account_settings WHERE user_id = ?").bind(user.id).first();
		const res = await call("PUT", "/user/models", { headers, json: { base_url: "http://[::ffff:a9fe:a9fe]/v1", api_key: "new-key" } });
		expect(res.status).toBe(422);
		const { detail } = await json<{ detail: { loc: string[]; msg: string }[] }>(res);
		expect(detail[0]).toMatchObject({ loc: ["body", "base_url"] });
		expect(detail[0]?.msg).toContain("metadata");
		expect(await env.DB.prepare("SELECT * FROM account_settings WHERE user_id = ?").bind(user.id).first()).toEqual(before);
	});
});
