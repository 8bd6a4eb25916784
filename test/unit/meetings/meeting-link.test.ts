import { describe, expect, it } from "vitest";
import type { Platform } from "../../../src/bot-channel/protocol";
import { constructMeetingUrl, nativeMeetingIdProblem, type ParsedMeetingLink, parseMeetingLink } from "../../../src/meetings/meeting-link";

const THREAD = "19:meeting_NjA4ZTk3YzctZGM0Ni00YzA4LWI2YzgtNzAzZGVmZTc4OTRk@thread.v2";
const THREAD_ENC = "19%3ameeting_NjA4ZTk3YzctZGM0Ni00YzA4LWI2YzgtNzAzZGVmZTc4OTRk%40thread.v2";
const TID = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const OID = "b6a4c4e1-6b0f-4d7c-9d1e-2f3c4b5a6d7e";
const CONTEXT_ENC = `%7b%22Tid%22%3a%22${TID}%22%2c%22Oid%22%3a%22${OID}%22%7d`;
const CONTEXT_CANON = encodeURIComponent(JSON.stringify({ Tid: TID, Oid: OID }));
const MEETUP = `https://teams.microsoft.com/l/meetup-join/${encodeURIComponent(THREAD)}/0`;

const meet = (id: string): ParsedMeetingLink => ({
	platform: "google_meet",
	native_meeting_id: id,
	constructed_meeting_url: `https://meet.google.com/${id}`,
});
const zoom = (id: string, passcode?: string): ParsedMeetingLink => ({
	platform: "zoom",
	native_meeting_id: id,
	...(passcode ? { passcode } : {}),
	constructed_meeting_url: `https://zoom.us/${/^\d+$/.test(id) ? "j" : "my"}/${id}${passcode ? `?pwd=${passcode}` : ""}`,
});
const teams = (id: string, constructed: string, passcode?: string): ParsedMeetingLink => ({
	platform: "teams",
	native_meeting_id: id,
	...(passcode ? { passcode } : {}),
	constructed_meeting_url: constructed,
});

/** One table: a link as a user pastes it, and what it parses into (null: not a meeting link). */
const CASES: [string, ParsedMeetingLink | null][] = [
	// Google Meet
	["https://meet.google.com/abc-defg-hij", meet("abc-defg-hij")],
	["meet.google.com/abc-defg-hij", meet("abc-defg-hij")],
	["https://meet.google.com/abc-defg-hij?authuser=1&hl=en", meet("abc-defg-hij")],
	["https://meet.google.com/xyz-wxyz-uvw/", meet("xyz-wxyz-uvw")],
	["  https://meet.google.com/qrs-tuvw-xyz#fragment  ", meet("qrs-tuvw-xyz")],
	["https://meet.google.com/ABC-DEFG-HIJ", meet("abc-defg-hij")],
	["http://meet.google.com/abc-defg-hij", meet("abc-defg-hij")],
	["https://meet.google.com/lookup/team-standup", null],
	["https://meet.google.com/", null],
	["https://meet.google.com/new", null],
	["https://meet.google.com/abc-defg-hi", null],
	["https://meet.google.com/abc-1234-hij", null],
	["https://meet.google.com.evil.example/abc-defg-hij", null],
	// Zoom
	["https://zoom.us/j/98765432101", zoom("98765432101")],
	["https://us05web.zoom.us/j/81234567890?pwd=aBcDeFgHiJkLmNoPqRsTuVwXyZ.1", zoom("81234567890", "aBcDeFgHiJkLmNoPqRsTuVwXyZ.1")],
	["https://us02web.zoom.us/j/123456789", zoom("123456789")],
	[
		"https://acme.zoom.us/j/98765432101?pwd=RE1sZkR4M3l0VWpmUU9LQ0VBcDBvZz09&from=addon",
		zoom("98765432101", "RE1sZkR4M3l0VWpmUU9LQ0VBcDBvZz09"),
	],
	["https://zoom.us/j/98765432101#success", zoom("98765432101")],
	["https://zoom.us/my/jane.doe", zoom("jane.doe")],
	["https://acme.zoom.us/my/JohnSmith?pwd=Xy12", zoom("johnsmith", "Xy12")],
	["https://app.zoom.us/wc/98765432101/join?pwd=abc123", zoom("98765432101", "abc123")],
	["https://zoom.us/wc/join/98765432101", zoom("98765432101")],
	["https://us06web.zoom.us/s/98765432101", zoom("98765432101")],
	// The registrant token of a meeting or webinar that needs registration stays on the link (Attendee).
	[
		"https://us06web.zoom.us/w/91234567890?tk=abc",
		{ ...zoom("91234567890"), constructed_meeting_url: "https://zoom.us/j/91234567890?tk=abc" },
	],
	[
		"https://us06web.zoom.us/j/91234567890?pwd=Xy12&tk=reg.TOKEN_1",
		{ ...zoom("91234567890", "Xy12"), constructed_meeting_url: "https://zoom.us/j/91234567890?pwd=Xy12&tk=reg.TOKEN_1" },
	],
	// A zoom.com link is the same meeting on zoom.us (Attendee).
	["https://us06web.zoom.com/j/98765432101?pwd=abc", zoom("98765432101", "abc")],
	["https://zoom.com.evil.example/j/98765432101", null],
	["https://zoom.us/j/12345678", null],
	["https://zoom.us/j/123456789012", null],
	["https://zoom.us/my/ab", null],
	["https://events.zoom.us/ev/AbCdEf", null],
	["https://zoom.us/webinar/register/WN_abcdef", null],
	["https://zoom.us.evil.example/j/98765432101", null],
	["https://notzoom.us/j/98765432101", null],
	// Microsoft Teams
	[`https://teams.microsoft.com/l/meetup-join/${THREAD_ENC}/0?context=${CONTEXT_ENC}`, teams(THREAD, `${MEETUP}?context=${CONTEXT_CANON}`)],
	[`https://teams.microsoft.com/l/meetup-join/${THREAD_ENC}/0`, teams(THREAD, MEETUP)],
	[
		`https://teams.microsoft.com/l/meetup-join/19%3a7f2e3b7d9c8a4b5e9f0a1b2c3d4e5f6a%40thread.tacv2/1700000000000?context=${CONTEXT_ENC}`,
		teams(
			"19:7f2e3b7d9c8a4b5e9f0a1b2c3d4e5f6a@thread.tacv2",
			`https://teams.microsoft.com/l/meetup-join/19%3A7f2e3b7d9c8a4b5e9f0a1b2c3d4e5f6a%40thread.tacv2/1700000000000?context=${CONTEXT_CANON}`,
		),
	],
	[
		`https://teams.microsoft.com/dl/launcher/launcher.html?url=${encodeURIComponent(`/_#/l/meetup-join/${THREAD_ENC}/0?context=${CONTEXT_ENC}&anon=true`)}&type=meetup-join&deeplinkId=abc&directDl=true&msLaunch=true&enableMobilePage=true&suppressPrompt=true`,
		teams(THREAD, `${MEETUP}?context=${CONTEXT_CANON}`),
	],
	[
		`https://teams.microsoft.com/_#/l/meetup-join/${THREAD_ENC}/0?context=${CONTEXT_ENC}`,
		teams(THREAD, `${MEETUP}?context=${CONTEXT_CANON}`),
	],
	[
		`https://teams.microsoft.com/light-meetings/launch?anon=true&coords=${btoa(JSON.stringify({ conversationId: THREAD, tenantId: TID, organizerId: OID, messageId: "0" }))}`,
		teams(THREAD, `${MEETUP}?context=${CONTEXT_CANON}`),
	],
	[
		"https://teams.live.com/meet/9398850880426?p=WB7TSXPa",
		teams("9398850880426", "https://teams.live.com/meet/9398850880426?p=WB7TSXPa", "WB7TSXPa"),
	],
	["https://teams.live.com/meet/9398850880426", teams("9398850880426", "https://teams.live.com/meet/9398850880426")],
	[
		"https://teams.microsoft.com/meet/24681357902468?p=KrL3eqZ9xT",
		teams("24681357902468", "https://teams.microsoft.com/meet/24681357902468?p=KrL3eqZ9xT", "KrL3eqZ9xT"),
	],
	["https://teams.microsoft.com/l/meetup-join/not-a-thread/0", null],
	["https://teams.microsoft.com/l/channel/19%3aabc%40thread.tacv2/General", null],
	["https://teams.live.com/meet/12345", null],
	["https://teams.microsoft.com/light-meetings/launch?coords=not-base64!", null],
	// Government clouds and the Teams web-app host keep their host: each is its own service.
	[
		"https://gov.teams.microsoft.us/meet/24681357902468?p=KrL3eqZ9xT",
		teams("24681357902468", "https://gov.teams.microsoft.us/meet/24681357902468?p=KrL3eqZ9xT", "KrL3eqZ9xT"),
	],
	[
		`https://dod.teams.microsoft.us/l/meetup-join/${THREAD_ENC}/0?context=${CONTEXT_ENC}`,
		teams(THREAD, `https://dod.teams.microsoft.us/l/meetup-join/${encodeURIComponent(THREAD)}/0?context=${CONTEXT_CANON}`),
	],
	[
		`https://gov.teams.microsoft.us/l/meetup-join/${THREAD_ENC}/0`,
		teams(THREAD, `https://gov.teams.microsoft.us/l/meetup-join/${encodeURIComponent(THREAD)}/0`),
	],
	[
		"https://teams.cloud.microsoft/meet/9398850880426?p=WB7TSXPa",
		teams("9398850880426", "https://teams.cloud.microsoft/meet/9398850880426?p=WB7TSXPa", "WB7TSXPa"),
	],
	[
		`https://teams.cloud.microsoft/l/meetup-join/${THREAD_ENC}/0`,
		teams(THREAD, `https://teams.cloud.microsoft/l/meetup-join/${encodeURIComponent(THREAD)}/0`),
	],
	[
		"https://zoomgov.com/j/1601234567?pwd=Gov123",
		{
			platform: "zoom",
			native_meeting_id: "1601234567",
			passcode: "Gov123",
			constructed_meeting_url: "https://zoomgov.com/j/1601234567?pwd=Gov123",
		},
	],
	[
		"https://agency.zoomgov.com/j/16012345678",
		{ platform: "zoom", native_meeting_id: "16012345678", constructed_meeting_url: "https://zoomgov.com/j/16012345678" },
	],
	["https://teams.microsoft.us.evil.example/meet/24681357902468", null],
	["https://evil.teams.microsoft.us/meet/24681357902468", null],
	["https://zoomgov.com.evil.example/j/1601234567", null],
	["https://teams.live.com/l/meetup-join/19%3ameeting_abc%40thread.v2/0", null],
	// Not meeting links at all
	["", null],
	["not a link", null],
	["ftp://meet.google.com/abc-defg-hij", null],
	["javascript:alert(1)//meet.google.com/abc-defg-hij", null],
	["https://user:pass@meet.google.com/abc-defg-hij", null],
	["https://meet.google.com:8443/abc-defg-hij", null],
	["https://discord.gg/abcdef", null],
	["https://whereby.com/abc-defg-hij", null],
];

describe("parseMeetingLink", () => {
	it("has a table of at least thirty cases", () => {
		expect(CASES.length).toBeGreaterThanOrEqual(30);
	});

	it.each(CASES)("parses %s", (link, expected) => {
		expect(parseMeetingLink(link)).toEqual(expected);
	});

	it("rebuilds, for every parsed link, a URL that parses back to the same meeting", () => {
		for (const [link, expected] of CASES) {
			if (!expected) continue;
			const again = parseMeetingLink(expected.constructed_meeting_url);
			expect(again, link).toEqual(expected);
		}
	});
});

describe("constructMeetingUrl", () => {
	const URLS: [Platform, string, string | undefined, string | null][] = [
		["google_meet", "abc-defg-hij", undefined, "https://meet.google.com/abc-defg-hij"],
		["google_meet", "abc-defg-hij", "ignored", "https://meet.google.com/abc-defg-hij"],
		["zoom", "98765432101", undefined, "https://zoom.us/j/98765432101"],
		["zoom", "98765432101", "aBc.1", "https://zoom.us/j/98765432101?pwd=aBc.1"],
		["zoom", "jane.doe", undefined, "https://zoom.us/my/jane.doe"],
		["teams", "9398850880426", "WB7TSXPa", "https://teams.live.com/meet/9398850880426?p=WB7TSXPa"],
		["teams", THREAD, undefined, MEETUP],
		// Any id the platform might hand out is built into a URL: the join decides, not the shape.
		["google_meet", "aaa-prb12345-bot", undefined, "https://meet.google.com/aaa-prb12345-bot"],
		["zoom", "123456789012", "pw", "https://zoom.us/j/123456789012?pwd=pw"],
		["zoom", "12", undefined, "https://zoom.us/j/12"],
		["teams", "1234567", "Xy", "https://teams.live.com/meet/1234567?p=Xy"],
		["teams", "12345678901234567890", undefined, "https://teams.live.com/meet/12345678901234567890"],
		["teams", "abc", undefined, "https://teams.microsoft.com/l/meetup-join/abc/0"],
		["teams", "19:meeting_x@thread.v2", undefined, "https://teams.microsoft.com/l/meetup-join/19%3Ameeting_x%40thread.v2/0"],
		// What would cut the URL is refused.
		["google_meet", "https://meet.google.com/abc-defg-hij", undefined, null],
		["teams", "397421056486982?p=X8hcQVTnGNpGelJLSv", undefined, null],
		["zoom", "", undefined, null],
	];

	it.each(URLS)("builds %s %s (passcode %s)", (platform, id, passcode, expected) => {
		expect(constructMeetingUrl(platform, id, passcode)).toBe(expected);
	});

	it("drops a passcode with spaces rather than building a broken URL", () => {
		expect(constructMeetingUrl("zoom", "98765432101", "two words")).toBe("https://zoom.us/j/98765432101");
	});
});

describe("nativeMeetingIdProblem", () => {
	it.each([
		"aaa-prb12345-bot", // the reference's own probe id, on google_meet
		"abc-defg-hij",
		"ABC-DEFG-HIJ",
		"123456789012", // a 12-digit Zoom id
		"1234567", // Teams meeting numbers of unusual lengths
		"12345678901234567890",
		"jane.doe",
		THREAD,
		"19:meeting_AbC-dEf_123@thread.tacv2",
		"x",
		"A".repeat(255),
		"réunion-été",
	])("accepts %s", (id) => {
		expect(nativeMeetingIdProblem(id)).toBeNull();
	});

	it.each([
		["397421056486982?p=X8hcQVTnGNpGelJLSv", "passcode"],
		["abc?def", "passcode"],
		["abc&def", "passcode"],
		["abc=def", "passcode"],
		["abc/def", "meeting_url"],
		["abc#def", "meeting_url"],
		["123 4567 8901", "spaces"],
		["abc\tdef", "control"],
		["abc\u0000def", "control"],
		["abc\u007fdef", "control"],
		["abc\u0085def", "control"],
		["A".repeat(256), "255"],
		["", "empty"],
	])("refuses %j, naming the fix (%s)", (id, named) => {
		const problem = nativeMeetingIdProblem(id);
		expect(problem).toContain("native_meeting_id");
		expect(problem).toContain(named);
	});
});
