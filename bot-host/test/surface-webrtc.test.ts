/**
 * Shared content cannot send UDP where it likes. In a bot's real Chromium (its own launch
 * flags), script on the shared-content page finds no WebRTC and no WebTransport, in its own
 * document or in a frame it makes, so no STUN request reaches an internal UDP port and no ICE
 * candidate shows the host's addresses; the meeting page of the same browser still gathers
 * candidates and reaches a STUN server, as a call needs.
 */
import dgram from "node:dgram";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BotBrowser, launchBotBrowser } from "../bot/browser.ts";
import { chromiumSandbox } from "../bot/chromium-sandbox.ts";
import { openSurface, type SharedSurface } from "../bot/surface.ts";

/** A UDP port standing in for an internal service (or a STUN server): it counts what arrives. */
async function udpListener(): Promise<{ port: number; packets: () => number; close: () => void }> {
	const socket = dgram.createSocket("udp4");
	let packets = 0;
	socket.on("message", () => packets++);
	await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
	return { port: (socket.address() as AddressInfo).port, packets: () => packets, close: () => socket.close() };
}

/** Script the page runs: a peer connection with a STUN server on `port`, its candidates after 1.5 s. */
const gather = (port: number) => `(async () => {
	const pc = new RTCPeerConnection({ iceServers: [{ urls: "stun:127.0.0.1:${port}" }] });
	const candidates = [];
	pc.onicecandidate = (e) => { if (e.candidate) candidates.push(e.candidate.candidate); };
	pc.createDataChannel("probe");
	await pc.setLocalDescription(await pc.createOffer());
	await new Promise((r) => setTimeout(r, 1500));
	pc.close();
	return candidates;
})()`;

/** Shared html that tries every way in: its own window, a fresh frame's window, and WebTransport. */
const hostileHtml = (port: number) => `<body style="margin:0;background:#fff"><script>
	const attempt = async (what, run) => {
		try { return { what, outcome: "opened", candidates: await run() }; } catch (err) { return { what, outcome: String(err) }; }
	};
	const frame = document.body.appendChild(document.createElement("iframe"));
	const inFrame = (name) => frame.contentWindow[name];
	window.probe = Promise.all([
		attempt("window", () => ${gather(port)}),
		attempt("frame", () => { const Pc = inFrame("RTCPeerConnection") || inFrame("webkitRTCPeerConnection"); if (!Pc) throw new Error("no RTCPeerConnection in the frame"); return new Pc({ iceServers: [{ urls: "stun:127.0.0.1:${port}" }] }).createOffer(); }),
		attempt("webtransport", async () => { await Promise.race([new WebTransport("https://127.0.0.1:${port}/").ready, new Promise((r) => setTimeout(r, 1500))]); return []; }),
	]).then((tries) => ({ tries, types: [typeof RTCPeerConnection, typeof webkitRTCPeerConnection, typeof WebTransport, typeof inFrame("RTCPeerConnection")] }));
</script></body>`;

describe("WebRTC and WebTransport on the shared-content page", () => {
	let bot: BotBrowser;
	let surface: SharedSurface;
	const logs: string[] = [];
	beforeAll(async () => {
		bot = await launchBotBrowser("webrtc-test", {
			executablePath: "/usr/bin/chromium",
			extraFlags: [],
			fakeDevices: true,
			sandbox: chromiumSandbox("/usr/bin/chromium", process.env.BOT_CHROMIUM_SANDBOX, (line) => logs.push(line)).sandbox,
		});
	});
	afterAll(async () => {
		await surface?.close();
		await bot?.close();
	});

	it("are gone for the shared page's script and its frames, while the meeting page still gathers candidates", async () => {
		const internal = await udpListener();
		const stun = await udpListener();
		try {
			const meeting = await bot.browser.newPage();
			const egress = { policy: { allowPrivate: false }, maxBytes: 1024 * 1024, maxVideoBytes: 1024 * 1024 };
			surface = await openSurface(bot.browser, { kind: "html", html: hostileHtml(internal.port) }, egress, (line) => logs.push(line));
			const shared = await surface.page.evaluate("window.probe");
			expect(shared).toEqual({
				tries: [
					{ what: "window", outcome: "ReferenceError: RTCPeerConnection is not defined" },
					{ what: "frame", outcome: "Error: no RTCPeerConnection in the frame" },
					{ what: "webtransport", outcome: "ReferenceError: WebTransport is not defined" },
				],
				types: ["undefined", "undefined", "undefined", "undefined"],
			});

			// The meeting page, in the same browser with the shared page open, still has WebRTC.
			const candidates = (await meeting.evaluate(gather(stun.port))) as string[];
			expect(candidates.some((c) => / typ host /.test(c))).toBe(true);
			expect(stun.packets()).toBeGreaterThan(0);
			expect(internal.packets()).toBe(0);
		} finally {
			internal.close();
			stun.close();
		}
	});
});
