/**
 * What the bot host benches drive: a host in process with the platform sandbox and a FakeRoom
 * playing the Worker's side of the channel. `spawn` launches a bot into a new sandbox meeting
 * the way the pull loop launches a claimed one, and resolves once the bot is `active`.
 */
import type { z } from "zod";
import { SpawnRequest } from "../../src/bot-channel/protocol.ts";
import { chromiumSandbox } from "../bot/chromium-sandbox.ts";
import { startSandbox } from "../sandbox/server.ts";
import { startBotHost } from "../service.ts";
import { FakeRoom } from "../test/room.ts";

export type Scenario = Parameters<Awaited<ReturnType<typeof startSandbox>>["setScenario"]>[1];

export async function startBenchRig(options: { slots?: number; botName: string; codePrefix: string }) {
	const sandbox = await startSandbox();
	const room = await FakeRoom.start();
	const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
	const sandboxed = chromiumSandbox(executablePath, process.env.BOT_CHROMIUM_SANDBOX, () => {}).sandbox;
	const host = await startBotHost({
		port: 0,
		...(options.slots ? { slots: options.slots } : {}),
		browser: { executablePath, extraFlags: sandbox.chromiumFlags, fakeDevices: true, sandbox: sandboxed },
		log: () => {},
	});
	let nextId = 700_000 + Math.floor(Math.random() * 250_000);
	/** `extra`: more of the spawn (a recording plan and where its parts go). */
	const spawn = async (scenario: Scenario, extra: Partial<z.input<typeof SpawnRequest>> = {}) => {
		const meetingId = ++nextId;
		const letter = (n: number) => String.fromCharCode(97 + (n % 26));
		const code = `${options.codePrefix}-${letter(meetingId)}${letter(meetingId >> 5)}xy-${letter(meetingId >> 10)}zz`;
		sandbox.setScenario(code, scenario);
		const startedAt = Date.now();
		host.launch(
			SpawnRequest.parse({
				meeting_id: meetingId,
				platform: "google_meet",
				native_meeting_id: code,
				meeting_url: `https://meet.google.com/${code}`,
				bot_name: options.botName,
				transcription: null,
				channel: { url: room.url(meetingId), token: "bench" },
				...extra,
			}),
		);
		const activeAt = await room.until(meetingId, (r) => {
			const i = r.findIndex((m) => m.type === "status" && m.status === "active");
			return i >= 0 ? room.arrivedAt(meetingId)[i] : undefined;
		});
		return { meetingId, code, spawnToActive: (activeAt ?? Date.now()) - startedAt };
	};
	/** The bot leaves on the room's command, as a stopped meeting's bot does. */
	const stop = async (meetingId: number) => {
		const session = host.bots.get(meetingId);
		room.command(meetingId, { action: "leave" });
		await session?.finished;
	};
	const close = async () => {
		await host.shutdown();
		await room.close();
		await sandbox.close();
	};
	return { sandbox, room, host, sandboxed, spawn, stop, close };
}
