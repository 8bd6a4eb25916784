/**
 * The platform registry: every platform has its facts, page facts, a driver and a sandbox page,
 * its links round-trip, and the sandbox stays independent of what the drivers believe.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Platform } from "../../src/bot-channel/protocol.ts";
import { parseMeetingLink } from "../../src/meetings/meeting-link.ts";
import { BROWSER_HOSTS, PLATFORM_CHOICES, PLATFORM_FACTS, PLATFORMS, platformName, platformOfHost } from "../../src/platforms/index.ts";
import { driverFor } from "../drivers/index.ts";
import { SANDBOX_HOSTS } from "../sandbox/cert.ts";

const ROOT = path.join(import.meta.dirname, "..", "..");
const SAMPLE_IDS = { google_meet: "abc-defg-hij", zoom: "84512345678", teams: "9398850880426" } as const;

describe("the platform registry", () => {
	it("is the one list of platforms the wire protocol accepts", () => {
		expect(Platform.options).toEqual([...PLATFORMS]);
		expect(PLATFORM_CHOICES.map(([code]) => code)).toEqual([...PLATFORMS]);
	});

	it.each(PLATFORMS)("%s has its facts, page facts, a driver and a sandbox page", (platform) => {
		const facts = PLATFORM_FACTS[platform];
		expect(facts.id).toBe(platform);
		expect(platformName(platform)).toBe(facts.name);
		expect(driverFor(platform).platform).toBe(platform);
		const folder = platform.replace("_", "-");
		expect(readdirSync(path.join(ROOT, "src", "platforms", folder))).toEqual(expect.arrayContaining(["page.ts", "platform.ts"]));
		expect(readdirSync(path.join(ROOT, "bot-host", "sandbox", "pages"))).toContain(`${folder}.ts`);
		for (const host of facts.browserHosts) expect(SANDBOX_HOSTS).toContain(host);
	});

	it.each(PLATFORMS)("%s rebuilds a link it reads back as the same meeting, on a host it owns", (platform) => {
		const url = PLATFORM_FACTS[platform].meetingUrl(SAMPLE_IDS[platform], platform === "google_meet" ? undefined : "s3cret");
		expect(platformOfHost(new URL(url).hostname)).toBe(platform);
		expect(parseMeetingLink(url)).toMatchObject({ platform, native_meeting_id: SAMPLE_IDS[platform] });
	});

	it("names no host twice and owns every host the sandbox answers for that is a meeting host", () => {
		expect(new Set(BROWSER_HOSTS).size).toBe(BROWSER_HOSTS.length);
		expect(platformOfHost("MEET.GOOGLE.COM")).toBe("google_meet");
		expect(platformOfHost("us05web.zoom.us")).toBe("zoom");
		expect(platformOfHost("example.com")).toBeNull();
		expect(platformName("webex")).toBe("webex");
	});

	it("keeps the sandbox pages independent of the drivers' page facts (a sandbox written from the driver proves nothing)", () => {
		const pages = path.join(ROOT, "bot-host", "sandbox", "pages");
		for (const file of readdirSync(pages)) {
			const source = readFileSync(path.join(pages, file), "utf8");
			expect(source, file).not.toMatch(/drivers\/|platforms\/[a-z-]+\/page(\.ts)?["']/);
		}
	});
});
