import { rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Heard, SpeechModel } from "../engine.ts";
import { speech } from "./service.ts";
import { writeTinyModel } from "./tiny-model.ts";

let model: SpeechModel;
const file = writeTinyModel();
beforeAll(async () => {
	model = await SpeechModel.load({ modelPath: file, threads: 1 });
});
afterAll(async () => {
	await model?.release();
	rmSync(path.dirname(file), { recursive: true, force: true });
});

describe("the passes' queue in front of the one model", () => {
	it("runs one pass at a time, confirmations before drafts queued earlier, and skips drafts no longer wanted", async () => {
		const audio = speech("One model, many meetings.");
		const order: string[] = [];
		const track = (name: string) => (heard: Heard | null) => {
			order.push(heard ? name : `${name} (skipped)`);
			return heard;
		};
		const running = model.transcribe(audio, { language: "en" }).then(track("first"));
		const drafts = [1, 2, 3].map((n) =>
			model.transcribe(audio, { language: "en", draft: true, stillWanted: () => n !== 2 }).then(track(`draft ${n}`)),
		);
		expect(model.waiting).toBe(3);
		const final = model.transcribe(audio, { language: "en" }).then(track("final"));
		expect(model.waiting).toBe(4);
		const results = await Promise.all([running, ...drafts, final]);
		expect(order).toEqual(["first", "final", "draft 1", "draft 2 (skipped)", "draft 3"]);
		expect(model.waiting).toBe(0);
		for (const heard of results.filter((r): r is Heard => r !== null)) {
			expect(heard.language).toBe("en");
			expect(heard.audioSeconds).toBeCloseTo(audio.length / 32_000, 3);
			expect(heard.computeSeconds).toBeGreaterThan(0);
		}
	});
});
