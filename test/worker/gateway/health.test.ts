import { describe, expect, it } from "vitest";
import rootPackage from "../../../package.json";
import { call, json } from "../support";

describe("health and the OpenAPI document", () => {
	it("answers /health without a key, with the release of the 0.12 line the gateway follows", async () => {
		const res = await call("GET", "/health");
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ status: "ok", service: "gateway", version: "0.12.27" });
	});

	it("reports one version, the root package.json's, on /health and in the OpenAPI document's info", async () => {
		const health = await json<{ version: string }>(await call("GET", "/health"));
		const doc = await json<{ info: { version: string; "x-api-contract": unknown } }>(await call("GET", "/openapi.json"));
		expect([health.version, doc.info.version]).toEqual([rootPackage.version, rootPackage.version]);
		// The contract it speaks is named apart, as a contract, not as a second version of the service.
		expect(doc.info["x-api-contract"]).toEqual({ name: "api.v1", version: "1.5.0" });
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
