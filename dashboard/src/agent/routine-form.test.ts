import { describe, expect, it } from "vitest";
import { EMPTY_ROUTINE, scheduleText, validateRoutine } from "./routine-form";

describe("routine form", () => {
	it("names every missing field at once", () => {
		expect(validateRoutine(EMPTY_ROUTINE)).toEqual({
			ok: false,
			errors: {
				name: "Give the routine a name.",
				cron: "A cron needs 5 fields (minute hour day month weekday), got 0.",
				prompt: "Say what the agent should do.",
			},
		});
	});

	it("builds a scheduled routine's body with the cron's spaces normalised and the text trimmed", () => {
		expect(validateRoutine({ name: " brief ", trigger: "cron", cron: " 0  9 * * 1-5 ", prompt: " Brief me ", runNow: true })).toEqual({
			ok: true,
			body: { name: "brief", prompt: "Brief me", run_now: true, cron: "0 9 * * 1-5" },
		});
	});

	it("builds an event routine without a cron, and refuses run-now for it as the API does", () => {
		expect(validateRoutine({ name: "sum", trigger: "event", cron: "ignored", prompt: "Summarize", runNow: false })).toEqual({
			ok: true,
			body: { name: "sum", prompt: "Summarize", run_now: false, event: "meeting.completed" },
		});
		expect(validateRoutine({ name: "sum", trigger: "event", cron: "", prompt: "Summarize", runNow: true })).toEqual({
			ok: false,
			errors: { runNow: "Only a scheduled routine can run now." },
		});
	});

	it("refuses nicknames, a wrong field count and stray characters, and leaves ranges to the server", () => {
		const base = { name: "n", trigger: "cron" as const, prompt: "p", runNow: false };
		expect(validateRoutine({ ...base, cron: "@daily" })).toMatchObject({ ok: false, errors: { cron: expect.stringContaining("@daily") } });
		expect(validateRoutine({ ...base, cron: "0 9 * * * *" })).toMatchObject({
			ok: false,
			errors: { cron: expect.stringContaining("got 6") },
		});
		expect(validateRoutine({ ...base, cron: "0 9 ? * *" })).toMatchObject({ ok: false, errors: { cron: expect.any(String) } });
		expect(validateRoutine({ ...base, cron: "0 24 * * mon-fri" })).toMatchObject({ ok: true });
	});

	it("keeps names and prompts within the API's limits", () => {
		const base = { trigger: "event" as const, cron: "", runNow: false };
		expect(validateRoutine({ ...base, name: "x".repeat(101), prompt: "p" })).toMatchObject({
			ok: false,
			errors: { name: expect.any(String) },
		});
		expect(validateRoutine({ ...base, name: "n", prompt: "p".repeat(8001) })).toMatchObject({
			ok: false,
			errors: { prompt: expect.any(String) },
		});
		expect(validateRoutine({ ...base, name: "x".repeat(100), prompt: "p".repeat(8000) })).toMatchObject({ ok: true });
	});

	it("says when a routine runs", () => {
		expect(scheduleText({ kind: "scheduled", cron: "0 9 * * 1-5", event: null })).toBe("0 9 * * 1-5 (UTC)");
		expect(scheduleText({ kind: "event", cron: null, event: "meeting.completed" })).toBe("After each meeting.completed");
	});
});
