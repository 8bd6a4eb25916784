/**
 * Shared screen content cannot fill the host's disk (docs/bot-fleet.md#a-bots-profile-limit). In a
 * bot's real Chromium, hostile `html` and `url` shares write blobs in a loop into IndexedDB,
 * CacheStorage and localStorage: each write past the origin's quota fails in the page with
 * QuotaExceededError, a frame of another origin gets no storage at all, and the profile stays far
 * below its limit. A page that gets past the quota, one origin after another, makes its profile
 * pass BOT_PROFILE_DISK_MB: the bot leaves and its meeting fails, naming the limit.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../test/shared/wait.ts";
import { type BotBrowser, launchBotBrowser } from "../bot/browser.ts";
import { chromiumSandbox } from "../bot/chromium-sandbox.ts";
import type { HostEgress } from "../bot/egress.ts";
import { diskUsage, ProfileWatch } from "../bot/profile-watch.ts";
import { openSurface, SURFACE_STORAGE_QUOTA_BYTES } from "../bot/surface.ts";
import { spawnBot, useWorld } from "./harness.ts";
import { finalStatus, statusesOf } from "./room.ts";

const MB = 1024 * 1024;
const EGRESS: HostEgress = { policy: { allowPrivate: true }, maxBytes: 8 * MB, maxVideoBytes: 8 * MB };

/**
 * Script for the page: each store filled with 4 MiB blobs (1 MiB strings for localStorage) until a
 * write fails, or 100 MiB at most, so a missing cap fails the test instead of filling the disk.
 * `window.filled` resolves to what each store took and the error that stopped it.
 */
const FILLERS = `
const BLOB = 4 * 1024 * 1024;
const MAX_WRITES = 25;
const outcome = (stored, err) => ({ stored, error: err ? err.name : "none" });
async function fillIndexedDb() {
	let stored = 0;
	try {
		const db = await new Promise((resolve, reject) => {
			const open = indexedDB.open("hoard", 1);
			open.onupgradeneeded = () => open.result.createObjectStore("blobs");
			open.onsuccess = () => resolve(open.result);
			open.onerror = () => reject(open.error);
		});
		for (let i = 0; i < MAX_WRITES; i++) {
			await new Promise((resolve, reject) => {
				const tx = db.transaction("blobs", "readwrite");
				tx.objectStore("blobs").put(new Blob([new Uint8Array(BLOB).fill(i + 1)]), i);
				tx.oncomplete = resolve;
				tx.onabort = () => reject(tx.error);
			});
			stored += BLOB;
		}
		return outcome(stored, null);
	} catch (err) {
		return outcome(stored, err);
	}
}
async function fillCaches() {
	if (typeof caches === "undefined") return { stored: 0, error: "no CacheStorage" };
	let stored = 0;
	try {
		const cache = await caches.open("hoard");
		for (let i = 0; i < MAX_WRITES; i++) {
			await cache.put("/hoard/" + i, new Response(new Uint8Array(BLOB).fill(i + 1)));
			stored += BLOB;
		}
		return outcome(stored, null);
	} catch (err) {
		return outcome(stored, err);
	}
}
function fillLocalStorage() {
	let stored = 0;
	try {
		for (let i = 0; i < 100; i++) {
			localStorage.setItem("hoard" + i, String.fromCharCode(65 + (i % 26)).repeat(1024 * 1024));
			stored += 1024 * 1024;
		}
		return outcome(stored, null);
	} catch (err) {
		return outcome(stored, err);
	}
}
async function fillAll() {
	return { indexedDb: await fillIndexedDb(), caches: await fillCaches(), localStorage: fillLocalStorage() };
}
`;

/** A hostile site on loopback: /hoard fills every store, /frame does so inside a frame and tells its parent, /chain/<n> fills and moves on. */
function hostileSite(ports: () => number[]) {
	return http.createServer((req, res) => {
		const url = req.url ?? "/";
		const chain = /^\/chain\/(\d+)$/.exec(url);
		let script: string;
		if (url === "/hoard") script = "window.filled = fillAll();";
		else if (url === "/frame") script = "fillAll().then((r) => parent.postMessage(r, '*'));";
		else if (chain) {
			// Fills this origin's stores, then goes on to the same page on the next port: a new origin, a new quota.
			const next = ports()[Number(chain[1]) + 1];
			script = `fillAll().then(() => { ${next ? `location.href = "http://127.0.0.1:${next}/chain/${Number(chain[1]) + 1}";` : ""} });`;
		} else {
			res.writeHead(404).end();
			return;
		}
		res.writeHead(200, { "content-type": "text/html" }).end(`<body><script>${FILLERS}\n${script}</script></body>`);
	});
}

async function listen(server: http.Server): Promise<number> {
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
	return (server.address() as AddressInfo).port;
}

async function close(server: http.Server): Promise<void> {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
}

interface Filled {
	stored: number;
	error: string;
}
type Stores = { indexedDb: Filled; caches: Filled; localStorage: Filled };

describe("shared content's storage in the bot's Chromium", () => {
	let bot: BotBrowser;
	const sites: http.Server[] = [];
	let port = 0;
	const logs: string[] = [];
	beforeAll(async () => {
		bot = await launchBotBrowser("profile-limit", {
			executablePath: "/usr/bin/chromium",
			extraFlags: [],
			fakeDevices: true,
			sandbox: chromiumSandbox("/usr/bin/chromium", process.env.BOT_CHROMIUM_SANDBOX, (line) => logs.push(line)).sandbox,
		});
		const site = hostileSite(() => [port]);
		sites.push(site);
		port = await listen(site);
	});
	afterAll(async () => {
		await bot?.close();
		for (const site of sites) await close(site);
	});

	it("stops an html share's writes at the quota, gives its frames of another origin no storage, and keeps the profile small", async () => {
		const html = `<body><script>${FILLERS}
			window.filled = fillAll();
			window.framed = new Promise((resolve) => addEventListener("message", (e) => resolve(e.data)));
			document.body.appendChild(document.createElement("iframe")).src = "http://127.0.0.1:${port}/frame";
		</script></body>`;
		const surface = await openSurface(bot.browser, { kind: "html", html }, EGRESS, (line) => logs.push(line));
		try {
			const own = (await surface.page.evaluate("window.filled")) as Stores;
			expect(own.indexedDb.error).toBe("QuotaExceededError");
			expect(own.indexedDb.stored).toBeLessThanOrEqual(SURFACE_STORAGE_QUOTA_BYTES);
			// A page on http: is no secure context: Chromium gives it no CacheStorage at all.
			expect(own.caches.error).toBe("no CacheStorage");
			// localStorage has Chromium's own limit, 10 MB per origin.
			expect(own.localStorage.error).toBe("QuotaExceededError");
			expect(own.localStorage.stored).toBeLessThanOrEqual(10 * MB);
			// Another origin's frame would store under a partition no quota reaches: it has no storage.
			const framed = (await surface.page.evaluate("window.framed")) as Stores;
			expect(framed).toEqual({
				indexedDb: { stored: 0, error: "SecurityError" },
				caches: { stored: 0, error: expect.any(String) },
				localStorage: { stored: 0, error: "SecurityError" },
			});
		} finally {
			await surface.close();
		}
		expect(await diskUsage(bot.profileDir)).toBeLessThan(64 * MB);
	});

	it("stops a url share's writes at the quota in a secure context, CacheStorage included", async () => {
		const surface = await openSurface(bot.browser, { kind: "url", url: `http://127.0.0.1:${port}/hoard` }, EGRESS, (line) =>
			logs.push(line),
		);
		try {
			const filled = (await surface.page.evaluate("window.filled")) as Stores;
			// IndexedDB and CacheStorage share the origin's quota: the first fills it, the second finds it full.
			expect(filled.indexedDb.error).toBe("QuotaExceededError");
			expect(filled.caches.error).toBe("QuotaExceededError");
			expect(filled.indexedDb.stored + filled.caches.stored).toBeLessThanOrEqual(SURFACE_STORAGE_QUOTA_BYTES);
			expect(filled.localStorage.error).toBe("QuotaExceededError");
		} finally {
			await surface.close();
		}
		expect(await diskUsage(bot.profileDir)).toBeLessThan(96 * MB);
	});
});

describe("a bot whose profile passes BOT_PROFILE_DISK_MB", () => {
	const PROFILE_LIMIT_MB = 48;
	const world = useWorld({ profileDiskMb: PROFILE_LIMIT_MB, profileWatchMs: 250 });
	const sites: http.Server[] = [];
	const ports: number[] = [];
	beforeAll(async () => {
		// Eight origins of one hostile site: each has a quota of its own, together far more than the limit.
		for (let i = 0; i < 8; i++) {
			const site = hostileSite(() => ports);
			sites.push(site);
			ports.push(await listen(site));
		}
	});
	afterAll(async () => {
		for (const site of sites) await close(site);
	});

	it("leaves the meeting, which fails naming the limit, and the host keeps taking work", { timeout: 120_000 }, async () => {
		const bot = await spawnBot(world, "google_meet", { direct_join: true, participants: [{ name: "Ines" }] });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		world.room.command(bot.meetingId, { action: "screen_show", content_type: "url", url: `http://127.0.0.1:${ports[0]}/chain/0` });
		const final = await world.room.until(bot.meetingId, finalStatus);
		expect(final).toMatchObject({ status: "failed" });
		expect(final?.reason).toMatch(
			new RegExp(
				`^the bot's browser profile passed its disk limit: \\d+ MB of ${PROFILE_LIMIT_MB} MB \\(BOT_PROFILE_DISK_MB\\); a page it showed, most likely shared screen content, stored too much$`,
			),
		);
		// It left the call itself, and its profile is gone with its browser.
		await until("the bot out of the sandbox meeting", () => world.sandbox.observed(bot.nativeId)?.attendees[0]?.left === true);
		await bot.session.finished;
		expect(world.host.capacity().limited_by).toEqual([]);
	});
});

describe("the profile watch", () => {
	it("measures on while directories come and go under it, and calls past the limit once", async () => {
		const dir = mkdtempSync(path.join(tmpdir(), "profile-watch-"));
		try {
			writeFileSync(path.join(dir, "kept"), Buffer.alloc(2 * MB, 1));
			// A page that churns databases: directories made and removed while the watch walks them.
			let churning = true;
			const churn = (async () => {
				for (let i = 0; churning; i++) {
					const sub = path.join(dir, `db-${i % 4}`, "blobs");
					mkdirSync(sub, { recursive: true });
					writeFileSync(path.join(sub, "blob"), Buffer.alloc(64 * 1024, 1));
					rmSync(path.dirname(sub), { recursive: true, force: true });
					await new Promise((resolve) => setImmediate(resolve));
				}
			})();
			const sizes: number[] = [];
			for (let i = 0; i < 50; i++) sizes.push(await diskUsage(dir));
			churning = false;
			await churn;
			expect(Math.min(...sizes)).toBeGreaterThanOrEqual(2 * MB);

			const passed: number[] = [];
			const watch = new ProfileWatch({ dir, limitBytes: 3 * MB, everyMs: 20, onExceeded: (used) => passed.push(used) });
			watch.start();
			try {
				await until("a measurement", () => watch.roomLeft < 3 * MB);
				expect(passed).toEqual([]);
				writeFileSync(path.join(dir, "more"), Buffer.alloc(2 * MB, 1));
				await until("the limit passed", () => passed.length > 0);
				await new Promise((resolve) => setTimeout(resolve, 100));
				expect(passed).toHaveLength(1);
				expect(passed[0]).toBeGreaterThan(3 * MB);
				expect(watch.roomLeft).toBe(0);
			} finally {
				watch.stop();
			}
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
