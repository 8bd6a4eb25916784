/** A bot played by the test over the real bot channel, exactly as the bot host would. */

import { inject } from "vitest";
import type { SpawnRequest } from "../../src/bot-channel/protocol";
import { gateway, Socket } from "./client";

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

/**
 * Plays the bot host: claims the meeting's attempt at the gateway (its ticket went to the
 * receiver standing in for the spawn queue) and gets the spawn request with the channel token.
 */
export async function spawnFor(meetingId: number, attempt = 1): Promise<SpawnRequest> {
	const res = await fetch(`${gateway()}/internal/bot-hosts/claims`, {
		method: "POST",
		headers: { "content-type": "application/json", authorization: `Bearer ${inject("botHostSecret")}` },
		body: JSON.stringify({ meeting_id: meetingId, attempt, host_id: "e2e-simulated-host", version: "e2e" }),
	});
	if (res.status !== 200) throw new Error(`claim of meeting ${meetingId} answered ${res.status}: ${await res.text()}`);
	return (await res.json()) as SpawnRequest;
}
