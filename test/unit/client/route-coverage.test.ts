/**
 * Every operation of the OpenAPI document has a method in the typed client: a route added to
 * the Worker (and so to the regenerated snapshot) fails here until the client calls it.
 */
import { describe, expect, it } from "vitest";
import snapshot from "../../../packages/client/openapi.json?raw";
import clientSource from "../../../packages/client/src/client.ts?raw";

/** Routes the client leaves to other tools, and why. */
const LEFT_OUT: Record<string, string> = {
	"GET /agent/workspace/repo.git/info/refs": "git smart HTTP: `git clone` speaks it (docs/workspace.md)",
	"POST /agent/workspace/repo.git/git-upload-pack": "git smart HTTP: `git clone` speaks it (docs/workspace.md)",
	"GET /calendars/oauth/callback": "the browser comes back to it from the provider's sign-in page (docs/api.md#calendars-you-sign-into)",
	"POST /calendars/push/google": "Google's push channels call it (docs/api.md#calendars-you-sign-into)",
	"POST /calendars/push/microsoft": "Graph's change notifications call it (docs/api.md#calendars-you-sign-into)",
};

describe("the typed client", () => {
	it("has a method for every operation of /openapi.json", () => {
		const doc = JSON.parse(snapshot) as { paths: Record<string, Record<string, unknown>> };
		const called = new Set(
			[...clientSource.matchAll(/"(get|put|post|delete|patch)",\s*"(\/[^"]*)"/g)].map((m) => `${m[1]?.toUpperCase()} ${m[2]}`),
		);
		const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
			Object.keys(ops)
				.filter((method) => ["get", "put", "post", "delete", "patch"].includes(method))
				// `/agent/api/x` is the long alias of `/agent/x` (docs/agent.md): the client calls the short form.
				.map((method) => `${method.toUpperCase()} ${path.replace(/^\/agent\/api\//, "/agent/")}`),
		);
		expect(operations.length).toBeGreaterThan(80);
		const missing = [...new Set(operations)].filter((op) => !called.has(op) && !(op in LEFT_OUT));
		expect(missing).toEqual([]);
	});
});
