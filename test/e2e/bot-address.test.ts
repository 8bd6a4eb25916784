/**
 * A caller cannot choose where a bot connects: the bot's channel and recording upload go to
 * the gateway's configured PUBLIC_BASE_URL, whatever Host the POST /bots named.
 */
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { eventually } from "../shared/wait";
import { apiAt, botGateway, newAccount, sandboxScenario } from "./client";

/** POST /bots with a Host header of the caller's choosing (fetch would not send it). */
function postBotsWithHost(base: string, host: string, key: string, body: unknown): Promise<{ status: number; body: string }> {
	const payload = JSON.stringify(body);
	return new Promise((resolve, reject) => {
		const req = http.request(
			`${base}/bots`,
			{
				method: "POST",
				headers: { Host: host, "X-API-Key": key, "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
			},
			(res) => {
				let text = "";
				res.setEncoding("utf8");
				res.on("data", (chunk) => {
					text += chunk;
				});
				res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
			},
		);
		req.on("error", reject);
		req.end(payload);
	});
}

/** A listener that only counts who connects to it. */
async function countingListener() {
	const peers: string[] = [];
	const server = net.createServer((socket) => {
		peers.push(`${socket.remoteAddress}:${socket.remotePort}`);
		socket.destroy();
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return { port: (server.address() as AddressInfo).port, peers, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe("a POST /bots naming another Host", () => {
	it("sends the real bot to PUBLIC_BASE_URL: the forged address hears nothing, and the meeting works and keeps its recording", async () => {
		const listener = await countingListener();
		try {
			const { key } = await newAccount(botGateway());
			const letters = Array.from({ length: 10 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join("");
			const code = `${letters.slice(0, 3)}-${letters.slice(3, 7)}-${letters.slice(7)}`;
			await sandboxScenario(code, {
				admit_after_ms: 300,
				participants: [{ name: "Dana Reyes", lines: ["Nobody else should hear this."] }],
				speech_start_ms: 500,
			});
			const created = await postBotsWithHost(botGateway(), `127.0.0.1:${listener.port}`, key, {
				platform: "google_meet",
				native_meeting_id: code,
				bot_name: "E2E Notetaker",
				recording_enabled: true,
			});
			expect(created.status).toBe(201);
			const meetingId = (JSON.parse(created.body) as { id: number }).id;

			const meeting = async () =>
				(await apiAt(botGateway(), "GET", `/meetings/${meetingId}`, { key })).body as {
					status: string;
					completion_reason: string | null;
					recordings: unknown[];
				};
			await eventually("the bot active", async () => ((await meeting()).status === "active" ? true : undefined), 45_000);
			// What was said reaches the transcript over the channel, and is in the recording too.
			const said = await eventually(
				"a transcript segment",
				async () => {
					const t = await apiAt(botGateway(), "GET", `/transcripts/google_meet/${code}`, { key });
					const segments = (t.body as { segments?: { speaker: string; text: string }[] }).segments ?? [];
					return segments.length > 0 ? segments : undefined;
				},
				45_000,
			);
			expect(said[0]).toMatchObject({ speaker: "Dana Reyes" });
			expect((await apiAt(botGateway(), "DELETE", `/bots/google_meet/${code}`, { key })).status).toBe(204);
			const ended = await eventually(
				"the meeting completed",
				async () => {
					const m = await meeting();
					return m.status === "completed" ? m : undefined;
				},
				45_000,
			);
			expect(ended.completion_reason).toBe("stopped");
			await eventually("its recording", async () => ((await meeting()).recordings.length === 1 ? true : undefined), 30_000);
			expect(listener.peers).toEqual([]);
		} finally {
			await listener.close();
		}
	});
});
