import { describe, expect, it } from "vitest";
import { SerialQueue } from "../../../durable-objects/shared/serial-queue";

/** A piece that takes time across an await: how the queue orders such pieces is what is under test. */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the serial queue (room, LiveFeed, Workspace writes)", () => {
	it("runs pieces one at a time in the order they came, across awaits", async () => {
		const queue = new SerialQueue();
		const log: string[] = [];
		const piece = (name: string, ms: number) =>
			queue.run(async () => {
				log.push(`${name} starts`);
				await sleep(ms);
				log.push(`${name} ends`);
				return name;
			});
		const results = await Promise.all([piece("slow", 30), piece("quick", 0), piece("last", 5)]);
		expect(results).toEqual(["slow", "quick", "last"]);
		expect(log).toEqual(["slow starts", "slow ends", "quick starts", "quick ends", "last starts", "last ends"]);
	});

	it("gives a failed piece's error to its caller and onError, and runs the next pieces", async () => {
		const heard: unknown[] = [];
		const queue = new SerialQueue({ onError: (err) => heard.push(err) });
		const failing = queue.run(async () => {
			throw new Error("storage said no");
		});
		const after = queue.run(async () => "still runs");
		await expect(failing).rejects.toThrow("storage said no");
		expect(await after).toBe("still runs");
		await queue.idle();
		expect(heard).toEqual([new Error("storage said no")]);
	});

	it("hands its tail to onQueued, which settles once the work queued so far has run", async () => {
		const tails: Promise<void>[] = [];
		const queue = new SerialQueue({ onQueued: (tail) => tails.push(tail) });
		let done = false;
		void queue.run(async () => {
			await sleep(10);
			done = true;
		});
		expect(tails).toHaveLength(1);
		await tails[0];
		expect(done).toBe(true);
	});
});
