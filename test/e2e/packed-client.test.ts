/**
 * `@meetbot/client` as npm would publish it: `npm pack` (whose prepack builds dist afresh) gives a
 * tarball, which is installed into empty projects outside the checkout, one with the optional
 * `ws` and one without. Each runs examples/live-transcript, a plain .mjs program, against the
 * gateway under wrangler dev: auth.me, a bot sent, and the live transcript until the meeting ends.
 * Node 22 uses its global WebSocket; a real Node 20 (from the npm registry, cached outside the
 * tree) uses `ws`, and without it reports the clear error and exits by itself.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../shared/wait";
import { gateway, newAccount } from "./client";
import { nodeBinary } from "./node-release";
import { playBot, spawnFor } from "./simulated-bot";

const REPO = path.resolve(import.meta.dirname, "../..");
const EXAMPLE = path.join(REPO, "examples", "live-transcript", "live-transcript.mjs");
/**
 * The environment for npm in the empty projects: none of the npm_* settings a parent `npm test`
 * passes down (its local prefix is this checkout), so each install stays in its own project.
 */
const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_")));
const toolsOnPath = { ...npmEnv, PATH: `${path.join(REPO, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}` };

let work: string;
let tarball: string;
let packed: { path: string }[];
let withWs: string;
let withoutWs: string;
let node20: string;

/** An empty project with `packages` installed from the registry (and the tarball), and the example beside them. */
function project(name: string, packages: string[]): string {
	const dir = path.join(work, name);
	mkdirSync(dir);
	writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, private: true, version: "0.0.0" }));
	execFileSync("npm", ["install", ...packages, "--no-audit", "--no-fund", "--prefer-offline", "--silent"], {
		cwd: dir,
		env: npmEnv,
		stdio: "pipe",
	});
	copyFileSync(EXAMPLE, path.join(dir, "live-transcript.mjs"));
	return dir;
}

beforeAll(() => {
	work = mkdtempSync(path.join(os.tmpdir(), "meetbot-packed-client-"));
	// The package's publishable files, packed from a copy: prepack's clean build must not race the suite's own dist.
	const source = path.join(work, "source");
	for (const entry of ["package.json", "README.md", "tsconfig.json", "src"])
		cpSync(path.join(REPO, "packages", "client", entry), path.join(source, entry), { recursive: true });
	const [summary] = JSON.parse(
		execFileSync("npm", ["pack", "--json", "--pack-destination", work], { cwd: source, env: toolsOnPath, encoding: "utf8", stdio: "pipe" }),
	) as { filename: string; files: { path: string }[] }[];
	if (!summary) throw new Error("npm pack reported no tarball");
	tarball = path.join(work, summary.filename);
	packed = summary.files;
	withWs = project("with-ws", [tarball, "ws@^8"]);
	withoutWs = project("without-ws", [tarball]);
	node20 = nodeBinary(20);
}, 300_000);

afterAll(() => {
	if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs the example with `node` in `dir`; its lines as they come, and how it ended. */
function runExample(node: string, dir: string, key: string, platform: string, code: string) {
	const child: ChildProcess = spawn(node, ["live-transcript.mjs", platform, code, "Packed client"], {
		cwd: dir,
		env: { PATH: process.env.PATH, MEETBOT_URL: gateway(), MEETBOT_API_KEY: key },
		stdio: ["ignore", "pipe", "pipe"],
	});
	const out: string[] = [];
	let err = "";
	let buffered = "";
	child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
		buffered += chunk;
		const lines = buffered.split("\n");
		buffered = lines.pop() ?? "";
		out.push(...lines);
	});
	child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
		err += chunk;
	});
	const exited = new Promise<number | null>((resolve) => child.on("exit", (status) => resolve(status)));
	return {
		out,
		stderr: () => err,
		exited,
		line: (what: string, match: RegExp) =>
			eventually(what, () => out.map((l) => match.exec(l)).find(Boolean) ?? undefined, 30_000).catch((e: Error) => {
				throw new Error(`${e.message}; the example printed ${JSON.stringify(out)} and on stderr ${JSON.stringify(err)}`);
			}),
		kill: () => child.kill("SIGKILL"),
	};
}

/** The example follows a meeting the test's bot plays: it prints the bot's line, then ends with the meeting. */
async function followsAMeeting(node: string, dir: string, code: string) {
	const { key, email } = await newAccount();
	const run = runExample(node, dir, key, "google_meet", code);
	try {
		expect((await run.line("signed in", /^signed in as (.+) \(user \d+\)$/))[1]).toBe(email);
		const meetingId = Number((await run.line("bot sent", /^bot sent to google_meet \S+ \(meeting (\d+)\)$/))[1]);
		const bot = await playBot(await spawnFor(meetingId));
		try {
			await run.line("subscribed", /^live: subscribed$/);
			await bot.send({ type: "status", status: "active", timestamp: new Date().toISOString() });
			const text = `Hello from ${path.basename(dir)} on ${execFileSync(node, ["--version"], { encoding: "utf8" }).trim()}.`;
			await bot.send({
				type: "segment",
				segment: { segment_id: "p-1", speaker: "Ada", speaker_source: "caption", text, start: 1, end: 2, completed: true },
			});
			await run.line("the bot's line", new RegExp(`^\\[Ada\\] ${text.replace(/\./g, "\\.")}$`));
			await bot.send({ type: "status", status: "completed", completion_reason: "stopped", timestamp: new Date().toISOString() });
			expect(await run.exited).toBe(0);
		} finally {
			bot.channel.close();
		}
		expect(run.out).toContain("status: active");
		expect(run.out.at(-1)).toBe("status: completed");
		expect(run.stderr()).toBe("");
	} finally {
		run.kill();
	}
}

describe("@meetbot/client from its npm tarball", () => {
	it("packs the built modules, their declarations and source maps, and nothing else", () => {
		const files = packed.map((f) => f.path).sort();
		expect(files).toEqual(expect.arrayContaining(["README.md", "package.json", "dist/index.js", "dist/index.d.ts", "dist/live.js.map"]));
		expect(files.filter((f) => !f.startsWith("dist/") && f !== "README.md" && f !== "package.json")).toEqual([]);
		const manifest = JSON.parse(readFileSync(path.join(withWs, "node_modules/@meetbot/client/package.json"), "utf8"));
		expect(manifest.private).toBeUndefined();
		expect(manifest).toMatchObject({
			engines: { node: ">=20" },
			sideEffects: false,
			exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js" } },
			peerDependenciesMeta: { ws: { optional: true } },
		});
		// The optional peer is installed only where asked for: the no-ws project really has none.
		expect(existsSync(path.join(withWs, "node_modules/ws/package.json"))).toBe(true);
		expect(existsSync(path.join(withoutWs, "node_modules/ws"))).toBe(false);
	});

	it("type-checks a TypeScript program against the installed declarations, without the DOM library", () => {
		writeFileSync(
			path.join(withWs, "consumer.ts"),
			[
				`import { createClient, type Meeting, NotFoundError, verifyWebhook, type WebhookEvent } from "@meetbot/client";`,
				`const meetbot = createClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k" });`,
				`export async function first(): Promise<Meeting | undefined> { return (await meetbot.meetings.list({ limit: 1 })).meetings[0]; }`,
				`export const check = (r: Request): Promise<WebhookEvent> => verifyWebhook(r, "secret");`,
				`export const missing = (e: unknown) => e instanceof NotFoundError && e.status === 404;`,
				// The types are the API's, not `any`: a misspelt field does not compile.
				`// @ts-expect-error no such field`,
				`export const wrong = async () => (await meetbot.auth.me()).emial;`,
			].join("\n"),
		);
		const tsc = path.join(REPO, "node_modules", ".bin", "tsc");
		const options = ["--noEmit", "--strict", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext"];
		const types = ["--lib", "es2023", "--types", "node", "--typeRoots", path.join(REPO, "node_modules", "@types")];
		execFileSync(tsc, [...options, ...types, "consumer.ts"], { cwd: withWs, encoding: "utf8" });
	});

	it("runs on Node 22 with its global WebSocket, no ws installed", async () => {
		expect(Number(process.versions.node.split(".")[0])).toBeGreaterThanOrEqual(22);
		await followsAMeeting(process.execPath, withoutWs, "pkg-nodt-wtw");
	});

	it("runs on a real Node 20 with ws, which has no global WebSocket", async () => {
		expect(execFileSync(node20, ["-p", "process.versions.node + ' ' + typeof WebSocket"], { encoding: "utf8" })).toMatch(
			/^20\.\S+ undefined/,
		);
		await followsAMeeting(node20, withWs, "pkg-nodt-wty");
	});

	it("on Node 20 without ws, reports the clear error and exits by itself, with no uncaught throw", async () => {
		const { key } = await newAccount();
		const run = runExample(node20, withoutWs, key, "google_meet", "pkg-nodt-wtn");
		try {
			expect(await run.exited).toBe(2);
			// The API works without a WebSocket; only the feed needs one.
			expect(run.out.filter((l) => /^bot sent to google_meet pkg-nodt-wtn \(meeting \d+\)$/.test(l))).toHaveLength(1);
			expect(run.stderr().trim()).toBe(
				"live feed stopped: this runtime has no global WebSocket (Node 20 has none) and the optional `ws` package is not installed: run `npm install ws`, or pass live.webSocket",
			);
		} finally {
			run.kill();
		}
	});
});
