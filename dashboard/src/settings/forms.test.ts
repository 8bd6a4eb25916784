import { describe, expect, it } from "vitest";
import {
	effectiveEvents,
	modelBody,
	modelForm,
	storedSecretText,
	transcriptionBody,
	transcriptionForm,
	WEBHOOK_EVENTS,
	webhookBody,
	webhookForm,
} from "./forms";

describe("webhook form", () => {
	it("offers every event type with a label, the live events after the default one", () => {
		expect(WEBHOOK_EVENTS.map(({ type, label, byDefault }) => [type, label, byDefault])).toEqual([
			["meeting.completed", "Meeting completed", true],
			["meeting.started", "Meeting started", false],
			["bot.failed", "Bot failed", false],
			["meeting.status_change", "Every status change", false],
			["transcript.segments", "Transcript lines as they are spoken", false],
			["participant.joined", "Participant joined", false],
			["participant.left", "Participant left", false],
		]);
	});

	it("shows the filter as it acts: only meeting.completed before any filter was set", () => {
		expect(effectiveEvents(null)).toEqual({
			"meeting.completed": true,
			"meeting.started": false,
			"bot.failed": false,
			"meeting.status_change": false,
			"transcript.segments": false,
			"participant.joined": false,
			"participant.left": false,
		});
	});

	it("lets a stored false override a default and leaves unmentioned events at theirs", () => {
		expect(effectiveEvents({ "meeting.completed": false, "bot.failed": true, "transcript.segments": true })).toEqual({
			"meeting.completed": false,
			"meeting.started": false,
			"bot.failed": true,
			"meeting.status_change": false,
			"transcript.segments": true,
			"participant.joined": false,
			"participant.left": false,
		});
	});

	it("never puts the masked secret into the form: the input starts empty", () => {
		const form = webhookForm({
			webhook_url: "https://hooks.example.com/x",
			webhook_secret_set: true,
			webhook_secret: "****abcd",
			webhook_events: {},
		});
		expect(form.secret.value).toBe("");
		expect(JSON.stringify(webhookBody(form))).not.toContain("****");
	});

	it("leaves the secret out when the input is empty, so the stored one is kept", () => {
		const form = webhookForm({
			webhook_url: " https://h.example/x ",
			webhook_secret_set: true,
			webhook_secret: "****abcd",
			webhook_events: {},
		});
		expect(webhookBody(form)).toEqual({
			webhook_url: "https://h.example/x",
			webhook_events: {
				"meeting.completed": true,
				"meeting.started": false,
				"bot.failed": false,
				"meeting.status_change": false,
				"transcript.segments": false,
				"participant.joined": false,
				"participant.left": false,
			},
		});
	});

	it("sends a new secret as typed, and null to remove the stored one", () => {
		const form = webhookForm({ webhook_url: null, webhook_secret_set: true, webhook_secret: "****abcd", webhook_events: {} });
		expect(webhookBody({ ...form, secret: { value: " s3cret ", remove: false } }).webhook_secret).toBe(" s3cret ");
		expect(webhookBody({ ...form, secret: { value: "ignored", remove: true } }).webhook_secret).toBeNull();
		expect(webhookBody(form).webhook_url).toBe("");
	});
});

describe("model and transcription forms", () => {
	const stored = {
		mode: "custom",
		model: "m1",
		meeting_model: null,
		base_url: "https://api.example/v1",
		api_key_set: true,
		api_key: "****9876",
	};

	it("sends the plain fields (empty clears to the default) and omits an untouched key", () => {
		const body = modelBody({ ...modelForm(stored), meetingModel: "  " });
		expect(body).toEqual({ mode: "custom", model: "m1", meeting_model: "", base_url: "https://api.example/v1" });
		expect("api_key" in body).toBe(false);
	});

	it("sends a typed key, or null when the stored one is removed", () => {
		expect(modelBody({ ...modelForm(stored), apiKey: { value: "sk-new", remove: false } }).api_key).toBe("sk-new");
		expect(modelBody({ ...modelForm(stored), apiKey: { value: "", remove: true } }).api_key).toBeNull();
	});

	it("does the same for the transcription token", () => {
		const form = transcriptionForm({
			engine: null,
			url: "https://tx.example",
			token_set: true,
			token: "****",
			vocabulary: [],
			usage: { day: "2026-11-29", relayed_seconds: 0, daily_limit_seconds: 3600 },
		});
		expect(transcriptionBody(form)).toEqual({ engine: null, url: "https://tx.example" });
		expect(transcriptionBody({ ...form, token: { value: "", remove: true } })).toEqual({
			engine: null,
			url: "https://tx.example",
			token: null,
		});
		expect(transcriptionBody({ ...form, engine: "deepgram", token: { value: "dg-key", remove: false } })).toEqual({
			engine: "deepgram",
			url: "https://tx.example",
			token: "dg-key",
		});
	});

	it("describes a stored secret only by the API's mask", () => {
		expect(storedSecretText(false, null)).toBe("None stored.");
		expect(storedSecretText(true, "****9876")).toBe("Stored: ****9876. Leave empty to keep it.");
		expect(storedSecretText(true, null)).toBe("Stored: ****. Leave empty to keep it.");
	});
});
