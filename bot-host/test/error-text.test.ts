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

	it("never carries a credential a URL in it holds", () => {
		const key = `vxa_bot_${"K".repeat(43)}`;
		const said = errorText(new Error(`fetch http://127.0.0.1:8787/ws?api_key=${key}&lang=en failed`));
		expect(said).toBe("fetch http://127.0.0.1:8787/ws?api_key=[redacted]&lang=en failed");
		expect(errorText({ type: "error", message: `wss://g.test/ws?ticket=${key}` })).not.toContain(key);
	});
});
