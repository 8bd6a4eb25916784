/**
 * How the client reads a refused answer: the API's `{detail}` when it has one, the status text
 * when the body is someone else's page, and an abort while the body is read stays an abort
 * (a page that unmounts mid-answer must not look like the API's refusal).
 */
import { describe, expect, it } from "vitest";
import { errorFromResponse, UnauthorizedError } from "../../../packages/client/src/errors";

const abortingBody = () =>
	new ReadableStream<Uint8Array>({
		start(controller) {
			controller.enqueue(new TextEncoder().encode('{"deta'));
			controller.error(new DOMException("The operation was aborted.", "AbortError"));
		},
	});

describe("errorFromResponse", () => {
	it("carries the API's detail and the status's error class", async () => {
		const err = await errorFromResponse(
			new Response(JSON.stringify({ detail: "Invalid API key" }), { status: 401, statusText: "Unauthorized" }),
			"GET /auth/me",
		);
		expect(err).toBeInstanceOf(UnauthorizedError);
		expect(err.detail).toBe("Invalid API key");
	});

	it("keeps the status text for a body that is not the API's error shape, without echoing it", async () => {
		const err = await errorFromResponse(new Response("<html>proxy says no</html>", { status: 401, statusText: "Unauthorized" }), "GET /x");
		expect(err.detail).toBe("Unauthorized");
		expect(err.message).not.toContain("proxy says no");
	});

	it("rethrows an abort that happens while the answer's body is read", async () => {
		const read = errorFromResponse(new Response(abortingBody(), { status: 401, statusText: "Unauthorized" }), "GET /auth/me");
		await expect(read).rejects.toMatchObject({ name: "AbortError" });
	});
});
