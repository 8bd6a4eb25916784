/** A bot played by the test over the real bot channel, exactly as the bot host would. */

import { inject } from "vitest";
import type { SpawnTicket } from "../../src/bot-channel/fleet";
import type { SpawnRequest } from "../../src/bot-channel/protocol";
import { eventually } from "../shared/wait";
import { api, gateway, nativeId, receivedAt, Socket } from "./client";

/** Connects to the meeting's channel with the spawn's token; `send` waits for the room's ack. */
export async function playBot(spawn: SpawnRequest) {
	const channel = await Socket.open(spawn.channel.url, { Authorization: `Bearer ${spawn.channel.token}` });
	channel.send({ type: "hello", last_acked_seq: 0 });
	await channel.waitFor("hello ack", (m) => m.type === "ack");
	let seq = 0;
	return {
		channel,
		async send(message: Record<string, unknown>) {
			seq += 1;
			const mine = seq;
			channel.send({ ...message, seq: mine });
			await channel.waitFor(`ack ${mine}`, (m) => m.type === "ack" && m.seq === mine);
		},
	};
}

/** The spawn queue's publish path on the receiver, which stands in for it at the simulated gateway. */
const QUEUE_MESSAGES = "/spawn-queue/client/v4/accounts/e2e/queues/bot-spawns/messages";

/** The newest ticket published for this meeting's attempt, as the queue got it. */
async function ticketFor(meetingId: number, attempt: number): Promise<SpawnTicket> {
	return eventually(
		`a spawn ticket for meeting ${meetingId} attempt ${attempt}`,
		async () =>
			(await receivedAt(QUEUE_MESSAGES))
				.map((r) => (JSON.parse(r.body) as { body: SpawnTicket }).body)
				.filter((t) => t.meeting_id === meetingId && t.attempt === attempt)
				.at(-1),
		10_000,
	);
}

/**
 * The simulated host's report: a host claims only the free slots it last reported
 * (docs/bot-fleet.md#host-credentials), so it reports one free before its claim, and none after,
 * which is what other meetings waiting at this gateway then read of it.
 */
async function reportFree(free: 0 | 1): Promise<void> {
	const host = inject("simulatedHost");
	const res = await fetch(`${gateway()}/internal/bot-hosts/reports`, {
		method: "POST",
		headers: { "content-type": "application/json", authorization: `Bearer ${host.credential}` },
		body: JSON.stringify({
			host_id: host.id,
			version: "e2e",
			slots: 1,
			running: 1 - free,
			launching: 0,
			free,
			draining: false,
			mem_available_mb: 8000,
			load1: 0,
			limited_by: free ? [] : ["slots"],
			refusing: free ? null : "1 of 1 slots taken",
		}),
	});
	if (res.status !== 204) throw new Error(`report of the simulated host answered ${res.status}: ${await res.text()}`);
}

/**
 * Plays the bot host: claims the meeting's attempt at the gateway with the ticket it published
 * (to the receiver, standing in for the spawn queue) and the host's own credential, and gets
 * the spawn request with the channel token.
 */
export async function spawnFor(meetingId: number, attempt = 1): Promise<SpawnRequest> {
	const ticket = await ticketFor(meetingId, attempt);
	const host = inject("simulatedHost");
	await reportFree(1);
	const res = await fetch(`${gateway()}/internal/bot-hosts/claims`, {
		method: "POST",
		headers: { "content-type": "application/json", authorization: `Bearer ${host.credential}` },
		body: JSON.stringify({ meeting_id: meetingId, attempt, host_id: host.id, version: "e2e", ticket }),
	});
	const answer = res.status === 200 ? ((await res.json()) as SpawnRequest) : null;
	const refusal = answer ? "" : await res.text();
	await reportFree(0);
	if (!answer) throw new Error(`claim of meeting ${meetingId} answered ${res.status}: ${refusal}`);
	return answer;
}

/**
 * A meeting (Google Meet unless `platform` says) sent a bot by `key`'s user, its attempt claimed
 * and the bot played, having reported each of `statuses` in order; the meeting's id, code, spawn
 * request and bot.
 */
export async function playedMeeting(key: string, { platform = "google_meet", code = nativeId(platform), statuses = ["active"] } = {}) {
	const created = await api("POST", "/bots", { key, json: { platform, native_meeting_id: code } });
	if (created.status !== 201) throw new Error(`POST /bots answered ${created.status}`);
	const meetingId = created.body.id as number;
	const spawn = await spawnFor(meetingId);
	const bot = await playBot(spawn);
	for (const status of statuses) await bot.send({ type: "status", status, timestamp: new Date().toISOString() });
	return { meetingId, code, spawn, bot };
}

/** A played meeting (above), `active`, whose bot has said each of `lines` (`[speaker, text]`, confirmed, 10 s apart). */
export async function meetingSaying(key: string, lines: [string, string][], code = nativeId("google_meet")) {
	const meeting = await playedMeeting(key, { code });
	for (const [i, [speaker, text]] of lines.entries()) {
		await meeting.bot.send({
			type: "segment",
			segment: {
				segment_id: `s-${i}`,
				speaker,
				speaker_source: "caption",
				text,
				start: 10 * i + 5,
				end: 10 * i + 9,
				language: "en",
				completed: true,
			},
		});
	}
	return meeting;
}
