/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import clientPackage from "../../../examples/webhook-consumer/package.json";
import rootPackage from "../../../package.json";
import lock from "../../../package-lock.json";
import clientLibrary from "../../../packages/client/package.json";
import { serviceVersion } from "../../../scripts/version.mjs";
import { MCP_SERVER_INFO } from "../../../src/mcp/server";
import { SERVICE_VERSION } from "../../../src/version";

/**
 * meetbot-edge has one version number, the root package.json's: the Worker (/health, the OpenAPI
 * document, the MCP server), the start banner, the bot host and the packages of this repository
 * report that one, and no source writes a version of its own. (/health and /openapi.json are
 * checked on the running Worker in test/worker/gateway/health.test.ts, the bot host's in
 * bot-host/test/first-run.test.ts.)
 */
const version = rootPackage.version;

const sources = import.meta.glob<string>(
	["../../../src/**/*.ts", "../../../bot-host/main.ts", "../../../scripts/start*.mjs", "!**/*.test.ts"],
	{ query: "?raw", import: "default", eager: true },
);

describe("one version number", () => {
	it("is a release number", () => {
		expect(version).toMatch(/^\d+\.\d+\.\d+$/);
	});

	it("is what the Worker, the MCP server and the start banner report", () => {
		expect(SERVICE_VERSION).toBe(version);
		expect(MCP_SERVER_INFO.version).toBe(version);
		expect(serviceVersion()).toBe(version);
	});

	it("is the version of every package of the repository, in package.json and the lockfile", () => {
		expect(clientLibrary.version).toBe(version);
		expect(clientPackage.version).toBe(version);
		expect(clientPackage.dependencies["@meetbot/client"]).toBe(version);
		const packages = lock.packages as Record<string, { version?: string }>;
		expect([
			lock.version,
			packages[""]?.version,
			packages["packages/client"]?.version,
			packages["examples/webhook-consumer"]?.version,
		]).toEqual([version, version, version, version]);
	});

	it("is written nowhere else: no source names a version of the service as a literal", () => {
		expect(Object.keys(sources).length).toBeGreaterThan(100);
		const literal = new RegExp(`["'\`]${version.replace(/\./g, "\\.")}["'\`]`);
		const offenders = Object.entries(sources)
			.filter(([, text]) => literal.test(text))
			.map(([file]) => file.replace(/^(\.\.\/)+/, ""));
		expect(offenders).toEqual([]);
	});
});
