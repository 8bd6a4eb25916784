/**
 * The platform registry: one entry per platform, each from its own folder. The Worker, the bot
 * host, the dashboard and the sandbox read platform facts only through here (and the page facts
 * in each folder's page.ts, which only the bot host reads).
 */
import { googleMeet } from "./google-meet/platform.ts";
import { PLATFORMS, type Platform } from "./ids.ts";
import type { PlatformFacts } from "./platform-facts.ts";
import { teams } from "./teams/platform.ts";
import { zoom } from "./zoom/platform.ts";

export { PLATFORMS, type Platform } from "./ids.ts";
export type { ParsedMeetingLink, PlatformFacts } from "./platform-facts.ts";

export const PLATFORM_FACTS: Readonly<Record<Platform, PlatformFacts>> = { google_meet: googleMeet, zoom, teams };

export const isPlatform = (value: string): value is Platform => (PLATFORMS as readonly string[]).includes(value);

/** The platform a link host (any case) belongs to, or null. */
export function platformOfHost(host: string): Platform | null {
	const lower = host.toLowerCase();
	return PLATFORMS.find((p) => PLATFORM_FACTS[p].ownsHost(lower)) ?? null;
}

/** The platform's product name, or the code as it came for one this service does not name. */
export function platformName(platform: string): string {
	return isPlatform(platform) ? PLATFORM_FACTS[platform].name : platform;
}

/** [code, name] of every platform, in the registry's order: the choices a form offers. */
export const PLATFORM_CHOICES: readonly (readonly [Platform, string])[] = PLATFORMS.map((p) => [p, PLATFORM_FACTS[p].name] as const);

/** Every host a bot's browser opens for some platform: what the sandbox answers for. */
export const BROWSER_HOSTS: readonly string[] = PLATFORMS.flatMap((p) => PLATFORM_FACTS[p].browserHosts);
