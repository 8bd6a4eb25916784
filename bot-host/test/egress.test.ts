/**
 * What a bot fetches and renders for users cannot reach the host's own network. The host runs
 * with private targets refused; one exact loopback origin (the asset server, standing in for a
 * public site) is excepted, and test names are mapped to loopback through the injectable
 * resolver. A second loopback server plays the internal service: it counts every TCP
 * connection, and must see none.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, until } from "../../test/shared/wait.ts";
import type { HostEgress } from "../bot/egress.ts";
import { type Spawned, spawnBot, startWorld, stopWorld, type World } from "./harness.ts";
import { finalStatus, statusesOf } from "./room.ts";

const RED_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#ff0000"/></svg>';
const CAP = 1024 * 1024;

interface Server {
	port: number;
	paths: string[];
	connections: number;
	close(): Promise<void>;
}

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse, port: number) => void): Promise<Server> {
	const state = { paths: [] as string[], connections: 0 };
	const server = http.createServer((req, res) => {
		state.paths.push(req.url ?? "");
		handler(req, res, port);
	});
	server.on("connection", () => state.connections++);
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
	const port = (server.address() as AddressInfo).port;
	return Object.assign(state, {
		port,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	});
}

describe("bot egress guard (private targets refused)", () => {
	let world: World;
	let assets: Server;
	let internal: Server;
	let bot: Spawned;
	const events = (name: string) => world.room.received(bot.meetingId).filter((m) => m.type === "event" && m.name === name);
	const logged = (text: string) => eventually(`the log line ${text}`, () => world.logs.find((line) => line.includes(text)));
	const color = () => world.sandbox.observed(bot.nativeId)?.camera.last_color;
	/** Shared content reaches the meeting as a screen share. */
	const shared = () => world.sandbox.observed(bot.nativeId)?.screen.last_color;

	beforeAll(async () => {
		internal = await serve((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("internal secret"));
		assets = await serve((req, res) => {
			const secret = `http://127.0.0.1:${internal.port}`;
			if (req.url === "/red.svg") res.writeHead(200, { "content-type": "image/svg+xml" }).end(RED_SVG);
			else if (req.url === "/page")
				res.writeHead(200, { "content-type": "text/html" }).end('<body style="margin:0;background:#00ff00"></body>');
			else if (req.url === "/pixel.svg") res.writeHead(200, { "content-type": "image/svg+xml" }).end(RED_SVG);
			else if (req.url === "/to-internal") res.writeHead(302, { location: `${secret}/redirected` }).end();
			else if (req.url === "/to-internal-by-name")
				res.writeHead(302, { location: `http://internal.test:${internal.port}/redirected` }).end();
			else if (req.url === "/declared-huge") res.writeHead(200, { "content-length": String(CAP + 1) }).end(Buffer.alloc(CAP + 1));
			else if (req.url === "/endless") {
				// No length: only counting bytes as they arrive can stop this.
				res.writeHead(200, { "content-type": "image/png" });
				const chunk = Buffer.alloc(64 * 1024);
				const pump = () => {
					while (res.write(chunk));
				};
				res.on("drain", pump);
				pump();
			} else res.writeHead(404).end();
		});
		const egress: HostEgress = {
			policy: {
				allowPrivate: false,
				exceptions: new Set([`127.0.0.1:${assets.port}`]),
				resolve: async (name) => {
					if (name === "assets.test" || name === "internal.test") return ["127.0.0.1"];
					throw new Error(`unknown name ${name}`);
				},
			},
			maxBytes: CAP,
			maxVideoBytes: CAP,
		};
		world = await startWorld({ egress });
		bot = await spawnBot(world, "google_meet", { direct_join: true, participants: [{ name: "Mallory" }] });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
	});
	afterAll(async () => {
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		await stopWorld(world);
		await assets.close();
		await internal.close();
	});

	it("fetches an allowed avatar over the address it checked (Chromium could not resolve the name)", async () => {
		world.room.command(bot.meetingId, { action: "avatar_set", url: `http://assets.test:${assets.port}/red.svg` });
		await world.room.until(bot.meetingId, () => events("avatar.set").length === 1);
		await until("the red avatar on camera", () => {
			const c = color();
			return c != null && c[0]! > 200 && c[1]! < 60;
		});
		expect(assets.paths).toContain("/red.svg");
	});

	it("refuses a name that resolves to loopback, a private literal and a redirect into loopback", async () => {
		world.room.command(bot.meetingId, { action: "avatar_set", url: `http://internal.test:${internal.port}/avatar.png` });
		await logged("command avatar_set failed: the avatar URL resolves to a loopback address");
		world.room.command(bot.meetingId, { action: "speak_audio", url: `http://127.0.0.1:${internal.port}/hello.wav` });
		await logged(`command speak_audio failed: the audio URL is refused: loopback target 127.0.0.1 is not allowed`);
		world.room.command(bot.meetingId, { action: "avatar_set", url: `http://127.0.0.1:${assets.port}/to-internal` });
		await logged("command avatar_set failed: the avatar URL is refused: loopback target 127.0.0.1 is not allowed");
		world.room.command(bot.meetingId, {
			action: "screen_show",
			content_type: "image",
			url: `http://assets.test:${assets.port}/to-internal-by-name`,
		});
		await logged("command screen_show failed: the screen image URL resolves to a loopback address");
		expect(assets.paths).toEqual(expect.arrayContaining(["/to-internal", "/to-internal-by-name"]));
		expect(events("avatar.set")).toHaveLength(1);
		expect(internal.connections).toBe(0);
	});

	it("stops a download at the byte cap, whether or not the length is declared", async () => {
		world.room.command(bot.meetingId, { action: "avatar_set", url: `http://127.0.0.1:${assets.port}/declared-huge` });
		await logged("command avatar_set failed: the download of the avatar URL exceeded 1 MB");
		const before = world.logs.length;
		world.room.command(bot.meetingId, { action: "screen_show", content_type: "video", url: `http://127.0.0.1:${assets.port}/endless` });
		await until("the screen video refused at the byte cap", () =>
			world.logs.slice(before).includes("command screen_show failed: the download of the screen video URL exceeded 1 MB"),
		);
		expect(events("screen.sharing_started")).toHaveLength(0);
	});

	it("renders shared html with its private iframe, images, fetches, sockets, workers and pop-ups blocked", async () => {
		const secret = `127.0.0.1:${internal.port}`;
		const html = `<body style="margin:0;background:#0000ff">
			<iframe src="http://${secret}/iframe" width="200" height="100"></iframe>
			<img src="http://internal.test:${internal.port}/by-name.png">
			<img src="http://[::ffff:7f00:1]:${internal.port}/mapped.png">
			<img src="http://assets.test:${assets.port}/pixel.svg">
			<script>
				fetch("http://${secret}/fetch").catch(() => {});
				try { new WebSocket("ws://${secret}/socket"); } catch {}
				window.open("http://${secret}/popup");
				try { new Worker("data:text/javascript,fetch('http://${secret}/worker')"); } catch {}
				const empty = document.body.appendChild(document.createElement("iframe"));
				try { new empty.contentWindow.WebSocket("ws://${secret}/from-empty-frame"); } catch {}
			</script></body>`;
		world.room.command(bot.meetingId, { action: "screen_show", content_type: "html", html });
		await world.room.until(bot.meetingId, () => events("screen.sharing_started").length === 1);
		await until("the blue shared html in the screen share", () => {
			const c = shared();
			return c != null && c[2]! > 180 && c[0]! < 80;
		});
		// The allowed image went through the guard: this name only resolves in the host's resolver.
		await until("the allowed image fetched", () => assets.paths.includes("/pixel.svg"));
		await logged(`shared content: blocked http://${secret}: a shared-content request is refused: loopback target 127.0.0.1`);
		await logged(`shared content: blocked http://internal.test:${internal.port}: a shared-content request resolves to a loopback address`);
		// A blocked try leaves no trace to wait for: the page runs on for two more shared frames (one a second) to make them.
		const framesThen = world.sandbox.observed(bot.nativeId)?.screen.frames ?? 0;
		await until("two more shared frames of the page", () => (world.sandbox.observed(bot.nativeId)?.screen.frames ?? 0) >= framesThen + 2);
		expect(internal.connections).toBe(0);
		world.room.command(bot.meetingId, { action: "screen_stop" });
		await world.room.until(bot.meetingId, () => events("screen.sharing_stopped").length === 1);
	});

	it("shares an allowed URL, and refuses one that redirects into loopback or is on loopback", async () => {
		world.room.command(bot.meetingId, { action: "screen_show", content_type: "url", url: `http://assets.test:${assets.port}/page` });
		await world.room.until(bot.meetingId, () => events("screen.sharing_started").length === 2);
		await until("the green shared page in the screen share", () => {
			const c = shared();
			return c != null && c[1]! > 180 && c[0]! < 80 && c[2]! < 80;
		});
		world.room.command(bot.meetingId, { action: "screen_stop" });
		await world.room.until(bot.meetingId, () => events("screen.sharing_stopped").length === 2);
		world.room.command(bot.meetingId, { action: "screen_show", content_type: "url", url: `http://127.0.0.1:${assets.port}/to-internal` });
		await logged(`shared content: blocked http://127.0.0.1:${internal.port}: a shared-content request is refused`);
		await logged("command screen_show failed:");
		world.room.command(bot.meetingId, { action: "screen_show", content_type: "url", url: `http://localhost:${internal.port}/` });
		await logged("command screen_show failed: the shared URL is refused: loopback target localhost is not allowed");
		expect(events("screen.sharing_started")).toHaveLength(2);
		expect(internal.connections).toBe(0);
	});
});
