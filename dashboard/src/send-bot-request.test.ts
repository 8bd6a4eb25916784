import { describe, expect, it } from "vitest";
import { platformOfLink, sendBotBody } from "./send-bot-request";

describe("send a bot from a pasted link", () => {
	it("reads the platform off the link's host, with or without a scheme", () => {
		expect(platformOfLink("https://meet.google.com/abc-defg-hij")).toBe("google_meet");
		expect(platformOfLink("meet.google.com/abc-defg-hij")).toBe("google_meet");
		expect(platformOfLink("https://us02web.zoom.us/j/85012345678?pwd=x")).toBe("zoom");
		expect(platformOfLink("https://acme.zoomgov.com/j/1234567890")).toBe("zoom");
		expect(platformOfLink("https://teams.live.com/meet/9312345678901?p=abc")).toBe("teams");
		expect(platformOfLink("https://gov.teams.microsoft.us/l/meetup-join/x")).toBe("teams");
		expect(platformOfLink("https://evil.example/meet.google.com")).toBeNull();
		expect(platformOfLink("https://notzoom.us/j/1")).toBeNull();
		expect(platformOfLink("abc-defg-hij")).toBeNull();
	});

	it("sends a link as meeting_url with its platform, and leaves empty optional fields out", () => {
		expect(
			sendBotBody({ link: " https://meet.google.com/abc-defg-hij ", platform: "", botName: " ", language: "", recording: false }),
		).toEqual({
			platform: "google_meet",
			meeting_url: "https://meet.google.com/abc-defg-hij",
			recording_enabled: false,
		});
	});

	it("sends a bare id with the chosen platform as native_meeting_id, with name, language and recording", () => {
		expect(sendBotBody({ link: "abc-defg-hij", platform: "google_meet", botName: "Notes", language: "pt-BR", recording: true })).toEqual({
			platform: "google_meet",
			native_meeting_id: "abc-defg-hij",
			bot_name: "Notes",
			language: "pt-BR",
			recording_enabled: true,
		});
	});

	it("sends what the recording holds only when recording is on", () => {
		const base = { link: "abc-defg-hij", platform: "zoom" as const, botName: "", language: "" };
		expect(sendBotBody({ ...base, recording: true, recordingKind: "video-1080p" })).toMatchObject({
			recording_enabled: true,
			recording_config: { video: true, resolution: "1080p" },
		});
		expect(sendBotBody({ ...base, recording: true, recordingKind: "audio" })).toMatchObject({ recording_config: { video: false } });
		expect(sendBotBody({ ...base, recording: false, recordingKind: "video-720p" })).not.toHaveProperty("recording_config");
	});

	it("says what is missing instead of sending a body the API would refuse", () => {
		expect(sendBotBody({ link: "", platform: "", botName: "", language: "", recording: false })).toHaveProperty("problem");
		expect(sendBotBody({ link: "abc-defg-hij", platform: "", botName: "", language: "", recording: false })).toHaveProperty("problem");
	});

	it("a chosen platform wins over the link's, so the API's own 'Not a zoom meeting link' can answer", () => {
		expect(
			sendBotBody({ link: "https://meet.google.com/abc-defg-hij", platform: "zoom", botName: "", language: "", recording: false }),
		).toMatchObject({
			platform: "zoom",
			meeting_url: "https://meet.google.com/abc-defg-hij",
		});
	});
});
