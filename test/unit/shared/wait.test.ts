import { describe, expect, it } from "vitest";
import { meetCode } from "../../shared/meetings";
import { eventually, until } from "../../shared/wait";

describe("the shared waits (test/shared/wait.ts)", () => {
	it("eventually returns the first value that is not undefined, falsy ones included", async () => {
		let calls = 0;
		expect(await eventually("the third call", () => (++calls === 3 ? 0 : undefined))).toBe(0);
		expect(calls).toBe(3);
		expect(await eventually("null at once", async () => null)).toBeNull();
	});

	it("eventually fails naming what it waited for once the time is up, instead of returning", async () => {
		const started = Date.now();
		await expect(eventually("a value that never comes", () => undefined, 100)).rejects.toThrow(
			"timed out after 100 ms waiting for a value that never comes",
		);
		expect(Date.now() - started).toBeGreaterThanOrEqual(100);
	});

	it("until waits for a predicate to hold, and fails naming it when it never does", async () => {
		let calls = 0;
		await until("the second call", async () => ++calls >= 2);
		expect(calls).toBe(2);
		await expect(until("a predicate that never holds", () => false, 50)).rejects.toThrow("waiting for a predicate that never holds");
	});
});

describe("meetCode (test/shared/meetings.ts)", () => {
	it("makes a fresh, valid Meet code each time", () => {
		const codes = Array.from({ length: 50 }, meetCode);
		for (const code of codes) expect(code).toMatch(/^[a-z]{3}-[a-z]{4}-[a-z]{3}$/);
		expect(new Set(codes).size).toBe(codes.length);
	});
});
