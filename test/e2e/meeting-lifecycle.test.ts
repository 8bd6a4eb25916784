import { describe, expect, it } from "vitest";
import { verifyWebhook } from "../../src/webhooks/signature";
import { eventually } from "../shared/wait";
import { api, newAccount, receivedAt, receiverUrl, Socket, wsUrl } from "./client";
import { meetingSaying, playBot, spawnFor } from "./simulated-bot";

describe("end to end through wrangler dev", () => {
	it("takes a meeting from POST /bots to a completed transcript, live on /ws, with signed webhooks", async () => {
		const { key } = await newAccount();
		const hookPath = `/hooks/${crypto.randomUUID()}`;
		const secret = "e2e-webhook-secret-0123456789";
		const hook = await api("PUT", "/user/webhook", {
			key,
			json: {
				webhook_url: `${receiverUrl()}${hookPath}`,
				webhook_secret: secret,
				webhook_events: { "meeting.started": true, "meeting.status_change": true },
			},
		});
		expect(hook.status).toBe(200);

		const created = await api("POST", "/bots", {
			key,
			json: { platform: "teams", meeting_url: "https://teams.live.com/meet/9398765432101?p=Pa55code" },
		});
		expect(created.status).toBe(201);
		const meetingId = created.body.id as number;
		const spawn = await spawnFor(meetingId);
		expect(spawn).toMatchObject({ platform: "teams", native_meeting_id: "9398765432101", passcode: "Pa55code" });

		const live = await Socket.open(wsUrl(`/ws?api_key=${encodeURIComponent(key)}`));
		live.send({ action: "subscribe", meetings: [{ platform: "teams", native_id: "9398765432101" }] });
		await live.waitFor("subscribed", (m) => m.type === "subscribed");

		const bot = await playBot(spawn);
		for (const status of ["joining", "awaiting_admission", "active"])
			await bot.send({ type: "status", status, timestamp: new Date().toISOString() });
		const segment = {
			segment_id: "t-1",
			speaker: "Priya",
			speaker_source: "caption",
			text: "Let's ship it.",
			start: 3.5,
			end: 4.4,
			language: "en",
			completed: true,
		};
		await bot.send({ type: "segment", segment });
		const bundle = await live.waitFor("transcript", (m) => m.type === "transcript");
		expect(bundle).toMatchObject({
			type: "transcript",
			speaker: "Priya",
			confirmed: [{ segment_id: "t-1", text: "Let's ship it." }],
			pending: [],
		});

		const stop = await api("DELETE", "/bots/teams/9398765432101", { key });
		expect(stop.status).toBe(204);
		await bot.channel.waitFor("leave", (m) => m.type === "command");
		await bot.send({ type: "status", status: "completed", completion_reason: "stopped", timestamp: new Date().toISOString() });

		const transcript = await api("GET", "/transcripts/teams/9398765432101", { key });
		expect(transcript.status).toBe(200);
		expect(transcript.body).toMatchObject({
			status: "completed",
			completion_reason: "stopped",
			segments: [{ speaker: "Priya", text: "Let's ship it.", start_time: 3.5 }],
		});

		const deliveries = await eventually("webhooks", async () => {
			const got = await receivedAt(hookPath);
			const types = got.map((r) => JSON.parse(r.body).event_type as string);
			// requested, joining, awaiting_admission, active, stopping, completed
			return types.includes("meeting.completed") && types.filter((t) => t === "meeting.status_change").length >= 6 ? got : undefined;
		});
		for (const d of deliveries) {
			const verdict = await verifyWebhook(secret, d.headers as Record<string, string>, d.body, { toleranceSeconds: 300 });
			expect(verdict.ok).toBe(true);
			expect(d.body).not.toContain("Let's ship it.");
		}
		const types = deliveries.map((d) => JSON.parse(d.body).event_type as string);
		expect(types.filter((t) => t === "meeting.started")).toHaveLength(1);
		expect(types.filter((t) => t === "meeting.completed")).toHaveLength(1);
		const steps = deliveries
			.map((d) => JSON.parse(d.body))
			.filter((e) => e.event_type === "meeting.status_change")
			.map((e) => `${e.data.status_change.from}>${e.data.status_change.to}`);
		expect(new Set(steps)).toEqual(
			new Set([
				"null>requested",
				"requested>joining",
				"joining>awaiting_admission",
				"awaiting_admission>active",
				"active>stopping",
				"stopping>completed",
			]),
		);
		const history = await api("GET", "/user/webhook/deliveries", { key });
		expect(
			(history.body.deliveries as { target_host: string; outcome: string }[]).every(
				(d) => d.target_host === "127.0.0.1" && d.outcome === "delivered",
			),
		).toBe(true);
		live.close();
	});

	it("pushes the lines a bot confirms, and who joined, to the receiver that asked for them, signed and in order", async () => {
		const { key } = await newAccount();
		const hookPath = `/hooks/${crypto.randomUUID()}`;
		const secret = "e2e-live-webhook-secret-0123456789";
		const hook = await api("PUT", "/user/webhook", {
			key,
			json: {
				webhook_url: `${receiverUrl()}${hookPath}`,
				webhook_secret: secret,
				webhook_events: { "transcript.segments": true, "participant.joined": true },
			},
		});
		expect(hook.status).toBe(200);
		const lines: [string, string][] = [
			["Priya", "The numbers are final."],
			["Sam", "Then we publish on Monday."],
			["Priya", "Agreed."],
		];
		const { bot, meetingId, code } = await meetingSaying(key, lines);
		await bot.send({ type: "participant", event: "join", participant: { id: "Lee", name: "Lee" }, timestamp: new Date().toISOString() });

		type Live = {
			event_type: string;
			data: { sequence: number; meeting: { id: number }; segments?: { text: string }[]; participant?: { name: string } };
		};
		const deliveries = await eventually("the lines and the join pushed", async () => {
			const got = await receivedAt(hookPath);
			return got.some((r) => r.body.includes('"event_type":"participant.joined"')) ? got : undefined;
		});
		for (const d of deliveries) {
			expect((await verifyWebhook(secret, d.headers as Record<string, string>, d.body, { toleranceSeconds: 300 })).ok).toBe(true);
		}
		const events = deliveries.map((d) => JSON.parse(d.body) as Live);
		expect(events.map((e) => e.data.sequence)).toEqual(events.map((_, i) => i + 1));
		expect(events.every((e) => e.data.meeting.id === meetingId)).toBe(true);
		expect(events.at(-1)).toMatchObject({ event_type: "participant.joined", data: { participant: { name: "Lee" } } });
		const pushed = events.filter((e) => e.event_type === "transcript.segments").flatMap((e) => e.data.segments ?? []);
		expect(pushed.map((s) => s.text)).toEqual(lines.map(([, text]) => text));
		expect((await api("DELETE", `/bots/google_meet/${code}`, { key })).status).toBe(204);
		bot.channel.close();
	});

	it("reports missing keys on /ws in-band and closes with 4401", async () => {
		const socket = await Socket.open(wsUrl("/ws"));
		await eventually("close", () => socket.closed);
		expect(socket.messages).toEqual([{ type: "error", error: "missing_api_key" }]);
		expect(socket.closed?.code).toBe(4401);
	});

	it("serves the OpenAPI document and health without a key", async () => {
		expect((await api("GET", "/health")).body).toEqual({ status: "ok", service: "gateway", version: "0.12.27" });
		const doc = await api("GET", "/openapi.json");
		expect(Object.keys(doc.body.paths as object)).toEqual(
			expect.arrayContaining(["/bots", "/meetings", "/transcripts/{platform}/{native_meeting_id}"]),
		);
	});
});
