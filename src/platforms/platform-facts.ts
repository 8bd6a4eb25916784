/**
 * What the service knows of one meeting platform besides its page (page-facts.ts): its name,
 * which links are its own and how they are read and rebuilt, how a meeting is labelled, and the
 * hosts a bot's browser opens for it. Pure: the Worker, the bot host, the dashboard and the
 * sandbox all import it.
 */
import type { Platform } from "./ids.ts";
import type { GuestScreenShare } from "./share-facts.ts";

export interface ParsedMeetingLink {
	platform: Platform;
	native_meeting_id: string;
	passcode?: string;
	constructed_meeting_url: string;
}

export interface PlatformFacts {
	id: Platform;
	/** The product's name as people say it. */
	name: string;
	/** Whether a link on this host (lower case) is the platform's. */
	ownsHost(host: string): boolean;
	/** A link of the platform's read strictly (only the shapes it hands out); null for anything else. */
	parseLink(url: URL): ParsedMeetingLink | null;
	/** The best joinable URL that an id and a passcode alone allow (the id already judged usable). */
	meetingUrl(nativeId: string, passcode: string | undefined): string;
	/** A meeting's name from its id when it has no title, e.g. "Zoom 123 4567 8901". */
	linkLabel(nativeId: string): string;
	/** Hosts the bot's browser opens for the platform (meetings, sign-in): what the sandbox stands in for. */
	browserHosts: readonly string[];
	/** What a guest bot may do with the platform's screen share (share-facts.ts): plans the answer of POST .../screen. */
	screenShare: GuestScreenShare;
}
