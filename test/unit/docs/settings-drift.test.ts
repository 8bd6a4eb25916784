/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import readme from "../../../README.md?raw";
import { DEPLOYMENT_DEFAULTS, type SettingName, setting } from "../../../src/settings/deployment-defaults";
import wranglerToml from "../../../wrangler.toml?raw";
import { tableRows } from "./markdown-table";

const defaults: Record<string, number | boolean | string> = DEPLOYMENT_DEFAULTS;
const MiB = 1024 * 1024;

/** A default as the README writes it, as a value: `1 GiB`, `10 MB` (binary, as everywhere in the README), `false (true locally)`. */
function documentedValue(cell: string): number | boolean | string {
	const text = cell
		.replace(/`/g, "")
		.replace(/\s*\(.*\)$/, "")
		.trim();
	const size = text.match(/^(\d+) (MB|MiB|GiB)$/);
	if (size) return Number(size[1]) * (size[2] === "GiB" ? 1024 * MiB : MiB);
	if (text === "true" || text === "false") return text === "true";
	return /^\d+$/.test(text) ? Number(text) : text;
}

/** Each documented setting with its default, from the README's settings table. */
function documentedDefaults(): Map<string, string> {
	const documented = new Map<string, string>();
	for (const [names = "", values = ""] of tableRows(readme, "settings")) {
		const settings = [...names.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1] ?? "");
		const cells = values.split(/,\s*/);
		settings.forEach((name, i) => {
			documented.set(name, (cells.length === settings.length ? cells[i] : values) ?? "");
		});
	}
	return documented;
}

/** wrangler.toml's [vars], as name → the string the Worker gets. */
function wranglerVars(): Map<string, string> {
	const section = wranglerToml.split(/^\[vars\]$/m)[1]?.split(/^\[/m)[0] ?? "";
	return new Map([...section.matchAll(/^([A-Z][A-Z0-9_]*)\s*=\s*"([^"]*)"/gm)].map((m) => [m[1] ?? "", m[2] ?? ""]));
}

describe("deployment settings", () => {
	it("documents every setting in the README's settings table with the default the code has", () => {
		const documented = documentedDefaults();
		const wrong = Object.entries(defaults).flatMap(([name, value]) => {
			const cell = documented.get(name);
			if (cell === undefined) return [`${name}: not in the README's settings table (default ${value})`];
			return documentedValue(cell) === value ? [] : [`${name}: README says ${cell}, the code ${value}`];
		});
		expect(wrong).toEqual([]);
	});

	it("has a default in the table for every setting the README gives one", () => {
		const noDefault = /^(unset|generated locally|binding)/;
		const missing = [...documentedDefaults()].filter(([name, cell]) => !noDefault.test(cell) && !(name in defaults)).map(([name]) => name);
		expect(missing).toEqual([]);
	});

	it("gives wrangler.toml's [vars] the same defaults, and names no setting the table lacks", () => {
		const vars = wranglerVars();
		expect(vars.size).toBeGreaterThan(10);
		const wrong = [...vars].filter(([name, value]) => String(defaults[name]) !== value).map(([name, value]) => `${name} = "${value}"`);
		expect(wrong).toEqual([]);
	});

	it("reads a setting as configured, else its default, whatever its type", () => {
		expect(setting({}, "BOT_PLACEMENT_TIMEOUT_S")).toBe(180);
		expect(setting({ BOT_PLACEMENT_TIMEOUT_S: "5" }, "BOT_PLACEMENT_TIMEOUT_S")).toBe(5);
		expect(setting({ BOT_PLACEMENT_TIMEOUT_S: "soon" }, "BOT_PLACEMENT_TIMEOUT_S")).toBe(180);
		expect(setting({ GATEWAY_RATE_LIMIT_RPS: "0.5" }, "GATEWAY_RATE_LIMIT_RPS")).toBe(0.5);
		expect(setting({ CALENDAR_SYNC_ENABLED: "false" }, "CALENDAR_SYNC_ENABLED")).toBe(false);
		expect(setting({ CALENDAR_SYNC_ENABLED: "" }, "CALENDAR_SYNC_ENABLED")).toBe(true);
		expect(setting({ TTS_MODEL: " " }, "TTS_MODEL")).toBe("tts-1");
	});

	it("is read only through setting(): no other file parses a setting with its own fallback", () => {
		const sources = import.meta.glob<string>(["../../../src/**/*.ts", "../../../durable-objects/**/*.ts", "!**/*.test.ts"], {
			query: "?raw",
			import: "default",
			eager: true,
		});
		const names = Object.keys(defaults) as SettingName[];
		const offending = Object.entries(sources)
			.filter(([path]) => !path.endsWith("src/settings/deployment-defaults.ts"))
			.flatMap(([path, text]) =>
				[
					...text.matchAll(
						/\b(?:intVar|numberVar|boolVar)\([^,]*\.([A-Z][A-Z0-9_]+)|\benv(?:\(\))?\.([A-Z][A-Z0-9_]+)\??(?:\.trim\(\))?\s*(?:\|\||\?\?)/g,
					),
				]
					.map((m) => m[1] ?? m[2] ?? "")
					.filter((name) => names.includes(name as SettingName) && !(path.endsWith("url-guard.ts") && name === "OUTBOUND_ALLOW_PRIVATE"))
					.map((name) => `${path.replace(/^(\.\.\/)+/, "")}: ${name}`),
			);
		expect(offending).toEqual([]);
	});
});
