import { describe, expect, it } from "vitest";
import { call, json } from "../support";

describe("health and the OpenAPI document", () => {
	it("answers /health without a key, with the release of the 0.12 line the gateway follows", async () => {
		const res = await call("GET", "/health");
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ status: "ok", service: "gateway", version: "0.12.27" });
	});

	it("serves an OpenAPI 3.1 document listing the mounted routes", async () => {
		const res = await call("GET", "/openapi.json");
		expect(res.status).toBe(200);
		const doc = await json<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(res);
		expect(doc.openapi).toBe("3.1.0");
		expect(Object.keys(doc.paths)).toEqual(
			expect.arrayContaining(["/health", "/auth/me", "/user/models", "/admin/users/{user_id}/tokens"]),
		);
		expect(Object.keys(doc.paths["/user/webhook"] ?? {}).sort()).toEqual(["get", "put"]);
	});
});
