/**
 * What a real bot host process under test works against, started together and closed
 * together: a sandbox for its bots' meetings, the FakeRoom their channels reach, the queue
 * stand-in it pulls tickets from and the claim server it claims them at (the drain, orphans
 * and stack-stop tests).
 */
import { type Sandbox, startSandbox } from "../sandbox/server.ts";
import { type ClaimServer, type CountingQueue, startClaimServer, startCountingQueue } from "./fleet-peers.ts";
import { FakeRoom } from "./room.ts";

export interface HostPeers {
	sandbox: Sandbox;
	room: FakeRoom;
	queue: CountingQueue;
	claims: ClaimServer;
	close(): Promise<void>;
}

export async function startHostPeers(): Promise<HostPeers> {
	const sandbox = await startSandbox();
	const room = await FakeRoom.start();
	const queue = await startCountingQueue();
	const claims = await startClaimServer();
	return {
		sandbox,
		room,
		queue,
		claims,
		async close() {
			await claims.close();
			await queue.close();
			await room.close();
			await sandbox.close();
		},
	};
}
