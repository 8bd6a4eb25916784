import { createExecutionContext, env, runDurableObjectAlarm, runInDurableObject, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import { ROOM_KEYS } from "../../../durable-objects/meeting-room/storage";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import { meetCode } from "../../shared/meetings";
import { hostCredential, ownMeetingIds, spawnRequestFor, ticketsFor } from "../meetings/bot-sim";
import { createPlan, getMeeting, meetUrl } from "../meetings/helpers";
import { sineWav } from "../recordings/wav-fixture";
import { call, json, roomOf, userWithKey } from "../support";

const MISSING = "PUBLIC_BASE_URL is not configured: bots cannot be launched";
const configured = new URL(env.PUBLIC_BASE_URL ?? "");

/** POST /bots as a client that forges the address it calls: URL and Host both say 127.0.0.1:9999. */
function forgedPostBots(headers: Record<string, string>, code: string) {
	return SELF.fetch("http://127.0.0.1:9999/bots", {
		method: "POST",
		headers: { ...headers, Host: "127.0.0.1:9999", "content-type": "application/json" },
		body: JSON.stringify({ platform: "google_meet", native_meeting_id: code, recording_enabled: true }),
	});
}

/** A token made the old way: keyed by what the bot host holds (its credential, once the shared secret). */
async function tokenFromBotHostSecret(meetingId: number): Promise<string> {
	const encoder = new TextEncoder();
	const key = await crypto.subtle.importKey(
		"raw",
		encoder.encode(`bot-channel:${await hostCredential()}`),
		{ name: "HMAC", hash: "SHA-256" },
		false,
		["sign"],
	);
	const payload = `${meetingId}.1.${Math.floor(Date.now() / 1000) + 3600}`;
	const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(payload));
	return `${payload}.${[...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

const openChannel = (meetingId: number, headers: Record<string, string>, query = "") =>
	call("GET", `/internal/bot-channel/${meetingId}${query}`, { headers: { Upgrade: "websocket", ...headers } });

function uploadRecording(meetingId: number, token: string) {
	const wav = sineWav(0.5);
	return call("PUT", `/internal/recordings/${meetingId}`, {
		headers: { authorization: `Bearer ${token}`, "content-type": "audio/wav", "content-length": String(wav.length) },
		body: wav,
	});
}

describe("where a bot reaches the gateway", () => {
	it("comes from PUBLIC_BASE_URL, never from the request's Host", async () => {
		const { headers } = await userWithKey();
		const res = await forgedPostBots(headers, meetCode());
		expect(res.status).toBe(201);
		const { id } = await json<{ id: number }>(res);
		const spawn = await spawnRequestFor(id);
		expect(spawn.channel.url).toBe(`wss://${configured.host}/internal/bot-channel/${id}`);
		expect(spawn.recording_upload_url).toBe(`${configured.origin}/internal/recordings/${id}`);
		expect(JSON.stringify(spawn)).not.toContain("9999");
	});

	it("without PUBLIC_BASE_URL, POST /bots refuses with 503 and claims nothing", async () => {
		const { headers, user } = await userWithKey("bot,tx", { max_concurrent_bots: 1 });
		const code = meetCode();
		const nextId = await ownMeetingIds();
		const ctx = createExecutionContext();
		const init = {
			method: "POST",
			headers: { ...headers, "content-type": "application/json" },
			body: JSON.stringify({ platform: "google_meet", native_meeting_id: code }),
		};
		const res = await worker.fetch(new Request("https://gateway.test/bots", init), { ...env, PUBLIC_BASE_URL: undefined } as Env, ctx);
		await waitOnExecutionContext(ctx);
		expect(res.status).toBe(503);
		expect(await res.json()).toEqual({ detail: MISSING });

		const rows = await env.DB.prepare("SELECT count(*) AS n FROM meetings WHERE user_id = ?").bind(user.id).first<{ n: number }>();
		expect(rows?.n).toBe(0);
		expect(await ticketsFor(nextId)).toEqual([]);
		// The one slot is still free: the same link launches once the address is configured.
		expect((await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: code } })).status).toBe(201);
	});

	it("without PUBLIC_BASE_URL, auto-join records a named error and the plan stays scheduled", async () => {
		const { headers } = await userWithKey();
		await ownMeetingIds();
		const plan = await createPlan(headers, {
			meeting_url: meetUrl(meetCode()),
			scheduled_at: new Date(Date.now() + 2 * 3600_000).toISOString(),
		});
		// The room's own environment, without the address (the Worker's and the room's are one deployment's).
		type WithEnv = { env: Env };
		let original: Env | undefined;
		await runInDurableObject(roomOf(plan.id), async (room: MeetingRoom, state) => {
			original = (room as unknown as WithEnv).env;
			(room as unknown as WithEnv).env = { ...original, PUBLIC_BASE_URL: undefined };
			await state.storage.put(ROOM_KEYS.timers, { auto_join: 0 });
			await state.storage.setAlarm(Date.now());
		});
		try {
			await runDurableObjectAlarm(roomOf(plan.id));
		} finally {
			await runInDurableObject(roomOf(plan.id), (room: MeetingRoom) => {
				if (original) (room as unknown as WithEnv).env = original;
			});
		}
		const after = await getMeeting(headers, plan.id);
		expect(after.status).toBe("scheduled");
		expect(after.data.auto_join_error).toBe(MISSING);
		expect(await ticketsFor(plan.id)).toEqual([]);
	});
});

describe("channel tokens", () => {
	it("are not made with the bot host's secret: such a token is refused on the channel and the upload", async () => {
		const { headers } = await userWithKey();
		const { id } = await json<{ id: number }>(
			await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: meetCode(), recording_enabled: true } }),
		);
		const spawn = await spawnRequestFor(id);
		const old = await tokenFromBotHostSecret(id);

		const refused = await openChannel(id, { Authorization: `Bearer ${old}` });
		expect(refused.status).toBe(401);
		expect(refused.webSocket).toBeNull();
		expect((await uploadRecording(id, old)).status).toBe(401);

		const accepted = await openChannel(id, { Authorization: `Bearer ${spawn.channel.token}` });
		expect(accepted.status).toBe(101);
		accepted.webSocket?.accept();
		accepted.webSocket?.close(1000, "done");
		expect((await uploadRecording(id, spawn.channel.token)).status).toBe(201);
	});

	it("are taken from the Authorization header only, not from the query", async () => {
		const { headers } = await userWithKey();
		const { id } = await json<{ id: number }>(
			await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: meetCode() } }),
		);
		const spawn = await spawnRequestFor(id);
		const res = await openChannel(id, {}, `?token=${encodeURIComponent(spawn.channel.token)}`);
		expect(res.status).toBe(401);
		expect(res.webSocket).toBeNull();
	});
});
