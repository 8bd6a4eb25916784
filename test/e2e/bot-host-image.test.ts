/**
 * bot-host/Dockerfile checked against the code it packages: every file bot-host/main.ts reaches
 * is copied (and not left out of the build context), every package it imports is installed, and
 * the image runs as a non-root user under an init, with no secret or host identity baked in.
 * Building the image needs root and minutes: scripts/build-image.sh (deploy/README.md).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BOT_HOST_PACKAGES } from "../../scripts/toolchain.mjs";
import { REPO, reachableFrom } from "./deploy/source-files.ts";

interface Instruction {
	op: string;
	args: string;
}

/** Instructions with continuation lines joined and comments dropped. */
function dockerfile(file = "bot-host/Dockerfile"): Instruction[] {
	const text = readFileSync(path.join(REPO, file), "utf8")
		.split("\n")
		.filter((line) => !/^\s*#/.test(line))
		.join("\n")
		.replace(/\\\n/g, " ");
	return text
		.split("\n")
		.map((line) => line.trim())
		.filter(Boolean)
		.map((line) => {
			const [op = "", ...rest] = line.split(/\s+/);
			return { op: op.toUpperCase(), args: rest.join(" ") };
		});
}

/** Whether `.dockerignore` lets a path into the build context (last matching rule wins). */
function inContext(file: string): boolean {
	const rules = readFileSync(path.join(REPO, ".dockerignore"), "utf8")
		.split("\n")
		.map((l) => l.trim())
		.filter((l) => l && !l.startsWith("#"));
	let included = true;
	for (const rule of rules) {
		const negated = rule.startsWith("!");
		const pattern = negated ? rule.slice(1) : rule;
		const matches = pattern === "*" || file === pattern || file.startsWith(`${pattern}/`);
		if (matches) included = negated;
	}
	return included;
}

const steps = dockerfile();
const copies = steps
	.filter((s) => s.op === "COPY" && !s.args.includes("--from"))
	.map((s) => {
		const parts = s.args.split(/\s+/).filter((p) => !p.startsWith("--"));
		return { sources: parts.slice(0, -1), destination: parts.at(-1) ?? "" };
	});
const removed = steps
	.filter((s) => s.op === "RUN")
	.flatMap((s) => [...s.args.matchAll(/\brm\s+-rf\s+([^&;]+)/g)].flatMap((m) => (m[1] ?? "").trim().split(/\s+/)));

/** Where a COPY puts a source file inside the image, relative to WORKDIR (null when not copied). */
function copiedTo(file: string): string | null {
	for (const { sources, destination } of copies) {
		for (const source of sources) {
			const dest = destination.replace(/\/$/, "");
			if (file === source) return destination.endsWith("/") ? `${dest}/${path.posix.basename(file)}` : dest;
			if (file.startsWith(`${source}/`)) return `${dest}/${file.slice(source.length + 1)}`;
		}
	}
	return null;
}

describe("the bot host image", () => {
	const { files, packages } = reachableFrom();

	it("copies every file bot-host/main.ts reaches, to the same path, and removes none of them", () => {
		expect(files).toContain("src/bot-channel/fleet.ts");
		const missing = files.filter((f) => copiedTo(f) !== f);
		expect(missing).toEqual([]);
		const deleted = files.filter((f) => removed.some((r) => f === r || f.startsWith(`${r}/`)));
		expect(deleted).toEqual([]);
		expect(files.filter((f) => !inContext(f))).toEqual([]);
	});

	it("keeps everything else out of the build context", () => {
		for (const file of [".dev.vars", "node_modules/zod/package.json", "src/index.ts", "bot-host/test/room.ts", "wrangler.toml"]) {
			expect(inContext(file), file).toBe(false);
		}
	});

	it("installs every package the bot host imports", () => {
		const install = steps.find((s) => s.op === "RUN" && /\bnpm (install|ci)\b/.test(s.args))?.args ?? "";
		expect(packages.length).toBeGreaterThan(0);
		expect(packages.filter((p) => !new RegExp(`(^|\\s)${p.replace("/", "\\/")}@`).test(install))).toEqual([]);
	});

	it("runs as a non-root user, under tini, stopped by SIGTERM, with a health check", () => {
		const users = steps.filter((s) => s.op === "USER").map((s) => s.args);
		expect(users.length).toBeGreaterThan(0);
		expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
		const last = (op: string) => steps.filter((s) => s.op === op).at(-1)?.args;
		expect(last("STOPSIGNAL")).toBe("SIGTERM");
		expect(JSON.parse(last("ENTRYPOINT") ?? "[]")).toEqual(["/usr/bin/tini", "-s", "--"]);
		expect(steps.some((s) => s.op === "RUN" && /apt-get install[^&]*\btini\b/.test(s.args))).toBe(true);
		expect(JSON.parse(last("CMD") ?? "[]")).toEqual(["node", "bot-host/main.ts"]);
		expect(last("HEALTHCHECK")).toMatch(/CMD/);
	});

	it("installs every Debian package the bot host needs, the ones npm start installs (Xvfb and xdotool for headed bots among them)", () => {
		const installs = steps.filter((s) => s.op === "RUN" && /apt-get install/.test(s.args)).map((s) => s.args);
		for (const [pkg] of BOT_HOST_PACKAGES)
			expect(
				installs.some((args) => new RegExp(`\\b${pkg}\\b`).test(args)),
				pkg,
			).toBe(true);
		expect(BOT_HOST_PACKAGES.map(([pkg]) => pkg)).toEqual(expect.arrayContaining(["xvfb", "xdotool"]));
	});

	it("bakes in no secret, host id or slot count", () => {
		const baked = steps
			.filter((s) => s.op === "ENV" || s.op === "ARG")
			.flatMap((s) => [...s.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=/g)].map((m) => m[1] ?? ""))
			.concat(steps.filter((s) => s.op === "ARG").map((s) => s.args.split("=")[0] ?? ""));
		expect(baked.length).toBeGreaterThan(0);
		expect(baked.filter((name) => /SECRET|TOKEN|PASSWORD|KEY|^BOT_HOST_ID$|^BOT_HOST_SLOTS$|^SPAWN_QUEUE/.test(name))).toEqual([]);
	});
});
