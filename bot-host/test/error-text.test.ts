import { describe, expect, it } from "vitest";
import { errorText } from "../error-text.ts";

describe("a failure in words", () => {
	it("is an Error's message", () => {
		expect(errorText(new Error("Xvfb exited"))).toBe("Xvfb exited");
	});

	it("is an error event's message, or its error's, never [object Object]", () => {
		// What a WebSocket's addEventListener("error") hands over, and so what puppeteer rejects with.
		expect(errorText({ type: "error", message: "connect ECONNREFUSED 127.0.0.1:9222", error: new Error("x") })).toBe(
			"connect ECONNREFUSED 127.0.0.1:9222",
		);
		expect(errorText({ type: "error", message: "", error: new Error("socket hang up") })).toBe("socket hang up");
		expect(errorText({ type: "close" })).toBe("close event");
	});

	it("is anything else as a string", () => {
		expect(errorText("gone")).toBe("gone");
		expect(errorText(42)).toBe("42");
		expect(errorText(null)).toBe("null");
	});
});
