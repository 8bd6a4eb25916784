import { describe, expect, it } from "vitest";
import { SAMPLE_RATE, speechSpans } from "../vad.ts";
import { mix, noise, seconds, silence, speech } from "./service.ts";

/** A 100 Hz hum (mains, a fan's motor): tonal, steady. */
function hum(ms: number, level: number): Buffer {
	const out = silence(ms);
	for (let i = 0; i < out.length / 2; i++)
		out.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 100 * i) / SAMPLE_RATE) * level * Math.SQRT2 * 0x7fff), i * 2);
	return out;
}

const spanTimes = (pcm: Buffer) =>
	speechSpans(pcm).map((s) => ({ start: s.startSample / SAMPLE_RATE, end: s.startSample / SAMPLE_RATE + seconds(s.audio) }));

describe("the voice gate in front of whisper", () => {
	it("lets nothing through from digital silence, low hiss, loud hiss or a steady hum", () => {
		expect(spanTimes(silence(5000))).toEqual([]);
		for (const level of [0.002, 0.01, 0.05]) expect(spanTimes(noise(5000, level)), `noise at ${level}`).toEqual([]);
		expect(spanTimes(hum(5000, 0.02))).toEqual([]);
	});

	it("finds each stretch of speech where it is, with silence between them left out", () => {
		const said = speech("Let us begin with the budget for next quarter.");
		const pcm = Buffer.concat([silence(2000), said, silence(3000), said, silence(2000)]);
		const spans = spanTimes(pcm);
		expect(spans).toHaveLength(2);
		const [first, second] = spans as [{ start: number; end: number }, { start: number; end: number }];
		const secondAt = 2 + seconds(said) + 3;
		expect(first.start).toBeGreaterThan(1.5);
		expect(first.end).toBeLessThan(secondAt);
		expect(second.start).toBeGreaterThan(2 + seconds(said));
		expect(second.end).toBeLessThanOrEqual(seconds(pcm));
		// Nothing of the long silences is kept beyond the gate's pre-roll and tail (a fraction of a second).
		expect(first.end - first.start).toBeLessThan(seconds(said) + 1.2);
	});

	it("finds speech over steady background noise, and not the noise around it", () => {
		const said = speech("The release is on Thursday.");
		const room = noise(8000, 0.01);
		const pcm = mix(room, Buffer.concat([silence(3000), said]));
		const spans = spanTimes(pcm);
		expect(spans).toHaveLength(1);
		expect(spans[0]?.start).toBeGreaterThan(2.5);
		expect(spans[0]?.end).toBeLessThan(3 + seconds(said) + 1);
	});
});
