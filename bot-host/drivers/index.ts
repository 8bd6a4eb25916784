import type { Platform } from "../../src/bot-channel/protocol.ts";
import { googleMeet } from "./google-meet.ts";
import { teams } from "./teams.ts";
import type { MeetingDriver } from "./types.ts";
import { zoom } from "./zoom.ts";

const DRIVERS: Record<Platform, MeetingDriver> = { google_meet: googleMeet, zoom, teams };

export function driverFor(platform: Platform): MeetingDriver {
	return DRIVERS[platform];
}
