/** A bot played by the test over the real bot channel, exactly as the bot host would. */
import type { SpawnRequest } from "../../src/bot-channel/protocol";
import { eventually, receivedAt, Socket } from "./client";

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

/** The spawn request the gateway sent the bot host (the recording receiver) for a meeting. */
export async function spawnFor(meetingId: number): Promise<SpawnRequest> {
	return eventually("spawn request", async () =>
		(await receivedAt("/bot-host/bots")).map((r) => JSON.parse(r.body) as SpawnRequest).find((s) => s.meeting_id === meetingId),
	);
}
