/**
 * The typed client's types are generated from a committed snapshot of GET /openapi.json
 * (`node scripts/build-client-types.mjs` rewrites both). These fail when the Worker's document
 * has moved on from the snapshot, or the generated types no longer come from the snapshot.
 */
import { describe, expect, it } from "vitest";
import snapshot from "../../../packages/client/openapi.json?raw";
import generated from "../../../packages/client/src/schema.ts?raw";
import { call } from "../support";

const REGENERATE = "run `node scripts/build-client-types.mjs` and commit packages/client/openapi.json and src/schema.ts";

async function sha256Hex(text: string): Promise<string> {
	const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
	return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

describe("the typed client's OpenAPI snapshot", () => {
	it("equals the document the Worker serves", async () => {
		const res = await call("GET", "/openapi.json");
		expect(res.status).toBe(200);
		const live = await res.json();
		expect(live, REGENERATE).toEqual(JSON.parse(snapshot));
	});

	it("is the one the committed types were generated from", async () => {
		const stated = /openapi\.json sha256: ([0-9a-f]{64})/.exec(generated)?.[1];
		expect(stated, REGENERATE).toBe(await sha256Hex(snapshot));
	});
});
