/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import readme from "../../../README.md?raw";
import { SANDBOX_LINKS } from "../../../scripts/start-banner.mjs";
import { parseMeetingLink } from "../../../src/meetings/meeting-link";

/**
 * What a new user reads first: the quick start is two commands; the sandbox steps cover Google
 * Meet, Zoom and Teams with the links `npm start` prints, each opened before a bot is sent to it;
 * and the README says recording is off by default and how to turn it on.
 */

const section = (heading: string) => {
	const start = readme.indexOf(`\n### ${heading}`);
	if (start < 0) throw new Error(`README has no section "${heading}"`);
	const end = readme.indexOf("\n### ", start + 1);
	return readme.slice(start, end < 0 ? undefined : end);
};

const NATIVE_PLATFORM: Record<string, string> = { "Google Meet": "google_meet", Zoom: "zoom", Teams: "teams" };

describe("the README's quick start", () => {
	it("is two commands", () => {
		const quickStart = readme.slice(readme.indexOf("## Quick start"));
		const block = /```sh\n([\s\S]*?)```/.exec(quickStart)?.[1] ?? "";
		const commands = block
			.split("\n")
			.map((line) => line.replace(/#.*$/, "").trim())
			.filter(Boolean);
		expect(commands).toEqual(["npm start", "npm test"]);
	});

	it("shows the banner with the sandbox links npm start prints", () => {
		const quickStart = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("\n### "));
		expect(quickStart).toContain("Detail log:");
		for (const [, , link] of SANDBOX_LINKS) expect(quickStart).toContain(link);
	});
});

describe("the README's sandbox steps", () => {
	const sandbox = section("Send a bot into a sandbox meeting");

	it.each(SANDBOX_LINKS.map(([platform, id, link]) => [platform, id, link] as const))(
		"cover %s: the table row's link is the one npm start prints, and it is a link to meeting %s",
		(platform, id, link) => {
			const row = sandbox.split("\n").find((line) => line.startsWith(`| ${platform} |`));
			expect(row, platform).toBeDefined();
			expect(row).toContain(`\`${id}\``);
			expect(row).toContain(`\`${link}\``);
			expect(row).toContain(`\`${NATIVE_PLATFORM[platform]}\``);
			expect(parseMeetingLink(link)).toMatchObject({ platform: NATIVE_PLATFORM[platform], native_meeting_id: id });
		},
	);

	it("opens every meeting on the control API before sending a bot to its link", () => {
		const opened = /for id in ([^;]+); do/.exec(sandbox)?.[1]?.split(/\s+/) ?? [];
		expect(opened.sort()).toEqual(SANDBOX_LINKS.map(([, id]) => id).sort());
		expect(sandbox).toContain("http://127.0.0.1:18058/__sandbox/meetings/$id");
		const opening = sandbox.indexOf("for id in");
		for (const [, , link] of SANDBOX_LINKS) {
			const sending = sandbox.indexOf(`"meeting_url":"${link}"`);
			expect(sending, link).toBeGreaterThan(opening);
		}
	});
});

describe("the README on recording", () => {
	const recording = section("Recording is off by default");

	it("says it is off by default, how to turn it on, how to configure it and where the recording is", () => {
		expect(recording).toContain('"recording_enabled": true');
		expect(recording).toContain("docs/api.md#recording-config");
		expect(recording).toContain('"recording_enabled":true,"recording_config":{');
		expect(recording).toContain("GET /recordings?meeting_id=<id>");
	});
});
