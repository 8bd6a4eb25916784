/**
 * `@meetbot/client` as a user's Node 22 program would use it (the built package, through its
 * exports), against the gateway under wrangler dev: typed calls, typed errors, and the live
 * feed over Node's global WebSocket with a one-use ticket, reconnecting and resubscribing after
 * the network drops the socket.
 */
import { createServer, Socket as NetSocket, type Server } from "node:net";
import {
	createAdminClient,
	createClient,
	type MeetingFrame,
	NotFoundError,
	type SubscribedFrame,
	UnauthorizedError,
	ValidationError,
} from "@meetbot/client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eventually } from "../shared/wait";
import { gateway, newAccount } from "./client";
import { playBot as playSimulatedBot, spawnFor } from "./simulated-bot";

/**
 * A TCP relay in front of the gateway: it stands for the network, so a test can cut every open
 * connection (as a NAT timeout or a Wi-Fi switch would) and see what the client does. It also
 * keeps the request lines it relayed, to check no key ever appears in a URL.
 */
function startRelay(target: URL): Promise<{ url: string; requestLines: string[]; cut(): void; server: Server }> {
	const open = new Set<NetSocket>();
	const requestLines: string[] = [];
	const server = createServer((inbound) => {
		const outbound = new NetSocket();
		outbound.connect(Number(target.port), target.hostname);
		open.add(inbound);
		open.add(outbound);
		inbound.on("data", (chunk: Buffer) => {
			for (const line of chunk.toString("latin1").split("\r\n"))
				if (/^(GET|POST|PUT|PATCH|DELETE) \S+ HTTP\/1\.1$/.test(line)) requestLines.push(line);
		});
		inbound.pipe(outbound).pipe(inbound);
		const end = () => {
			inbound.destroy();
			outbound.destroy();
			open.delete(inbound);
			open.delete(outbound);
		};
		inbound.on("close", end).on("error", end);
		outbound.on("close", end).on("error", end);
	});
	return new Promise((resolve) =>
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			const port = typeof address === "object" && address ? address.port : 0;
			resolve({
				url: `http://127.0.0.1:${port}`,
				requestLines,
				server,
				cut: () => {
					for (const socket of open) socket.destroy();
				},
			});
		}),
	);
}

/** The simulated bot, with a line of Ada's as one call. */
async function playBot(meetingId: number) {
	const bot = await playSimulatedBot(await spawnFor(meetingId));
	const say = (id: string, text: string) =>
		bot.send({
			type: "segment",
			segment: { segment_id: id, speaker: "Ada", speaker_source: "caption", text, start: 1, end: 2, completed: true },
		});
	return { ...bot, say };
}

let relay: Awaited<ReturnType<typeof startRelay>>;
beforeAll(async () => {
	relay = await startRelay(new URL(gateway()));
});
afterAll(() => relay.server.close());

describe("@meetbot/client against wrangler dev", () => {
	it("makes typed calls, with the admin client making the account", async () => {
		const admin = createAdminClient({ baseUrl: gateway(), adminToken: inject("adminToken") });
		const user = await admin.users.create({ email: `typed-${Date.now()}@example.com` });
		const minted = await admin.keys.mint(user.id, { scopes: "bot,tx" });
		const client = createClient({ baseUrl: relay.url, apiKey: minted.token });
		const me = await client.auth.me();
		expect(me).toMatchObject({ user_id: user.id });
		const sent = await client.bots.send({ platform: "zoom", native_meeting_id: "81234567890", bot_name: "Typed" });
		expect(sent).toMatchObject({ platform: "zoom", native_meeting_id: "81234567890", status: "requested" });
		const { running_bots } = await client.bots.status();
		expect(running_bots.map((b) => b.native_meeting_id)).toContain("81234567890");
		const transcript = await client.transcripts.get("zoom", "81234567890");
		expect(transcript).toMatchObject({ id: sent.id, segments: [] });
		await client.bots.stop("zoom", "81234567890");
		expect(relay.requestLines.length).toBeGreaterThan(3);
		expect(relay.requestLines.filter((l) => l.includes(minted.token))).toEqual([]);
	});

	it("throws typed errors: 404 with its detail, 422 with the field list, 401", async () => {
		const { key } = await newAccount();
		const client = createClient({ baseUrl: gateway(), apiKey: key });
		const missing = await client.transcripts.get("google_meet", "zzz-zzzz-zzz").catch((e: unknown) => e);
		expect(missing).toBeInstanceOf(NotFoundError);
		expect(missing).toMatchObject({ status: 404, route: "GET /transcripts/google_meet/zzz-zzzz-zzz" });
		expect(typeof (missing as NotFoundError).detail).toBe("string");

		const invalid = await client.user.webhook.deliveries({ limit: 100_000 }).catch((e: unknown) => e);
		expect(invalid).toBeInstanceOf(ValidationError);
		expect((invalid as ValidationError).fields.map((f) => f.loc)).toEqual([["query", "limit"]]);

		const stranger = createClient({ baseUrl: gateway(), apiKey: `${key}-revoked` });
		const refused = await stranger.meetings.list().catch((e: unknown) => e);
		expect(refused).toBeInstanceOf(UnauthorizedError);
		expect((refused as UnauthorizedError).status).toBe(401);
		expect((refused as Error).message).not.toContain(key);
	});

	it("live.subscribe takes a ticket, receives typed frames, and resubscribes after the network drops the socket", async () => {
		const { key } = await newAccount();
		const client = createClient({ baseUrl: relay.url, apiKey: key, live: { backoffMs: 50 } });
		const code = "typ-edcl-ien";
		const meeting = await client.bots.send({ platform: "google_meet", native_meeting_id: code });
		const bot = await playBot(meeting.id);
		await bot.send({ type: "status", status: "active", timestamp: new Date().toISOString() });

		const frames: MeetingFrame[] = [];
		const subscribed: { frame: SubscribedFrame; connection: number }[] = [];
		const disconnects: boolean[] = [];
		const feed = client.live.subscribe([{ platform: "google_meet", native_id: code }], {
			onFrame: (f) => frames.push(f),
			onSubscribed: (frame, { connection }) => subscribed.push({ frame, connection }),
			onDisconnect: ({ willReconnect }) => disconnects.push(willReconnect),
		});
		try {
			await feed.ready;
			await bot.say("a-1", "Before the drop.");
			const first = await eventually("first line", () =>
				frames.find((f) => f.type === "transcript" && f.confirmed[0]?.text === "Before the drop."),
			);
			expect(first.meeting).toMatchObject({ id: meeting.id, platform: "google_meet", native_id: code });

			relay.cut();
			await eventually("resubscribed on a new connection", () => subscribed.find((s) => s.connection === 2), 20_000);
			expect(disconnects[0]).toBe(true);
			expect(subscribed.map((s) => s.frame.meetings)).toEqual([
				[{ platform: "google_meet", native_id: code }],
				[{ platform: "google_meet", native_id: code }],
			]);
			await bot.say("a-2", "After the drop.");
			await eventually("line after the reconnect", () =>
				frames.find((f) => f.type === "transcript" && f.confirmed[0]?.text === "After the drop."),
			);
			// Each connection used its own ticket; the key itself never went into a URL.
			const tickets = relay.requestLines.filter((l) => l.startsWith("GET /ws?ticket="));
			expect(new Set(tickets).size).toBe(2);
			expect(relay.requestLines.filter((l) => l.includes(key))).toEqual([]);
		} finally {
			feed.close();
			bot.channel.close();
		}
	});
});
