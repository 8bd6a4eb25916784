/**
 * A silero VAD model in whisper.cpp's ggml layout (whisper.cpp/src/whisper.cpp,
 * whisper_vad_init_with_params: magic, type and version, window and context, the encoder's and
 * LSTM's sizes, then named tensors), with silero v5's real sizes and seeded random weights, except
 * the last layer: its weights are zero and its bias decides the answer, so the model hears speech
 * everywhere (`hears: "speech"`) or nowhere (`"nothing"`). It proves the service loads a VAD model
 * and gates on it, not that silero is accurate.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { GGML_MAGIC, random, Writer } from "./tiny-model.ts";

/** (in, out, kernel) of silero v5's four encoder convolutions. */
const ENCODER: [number, number, number][] = [
	[129, 128, 3],
	[128, 64, 3],
	[64, 64, 3],
	[64, 128, 3],
];
const LSTM = 128;

export function tinyVad(hears: "speech" | "nothing"): Buffer {
	const rand = random(5);
	const w = new Writer();
	const type = Buffer.from("silero-16k");
	w.i32(GGML_MAGIC, type.length);
	w.bytes(type);
	// version 5.1.2, window 512 samples, context 64
	w.i32(5, 1, 2, 512, 64);
	w.i32(ENCODER.length);
	for (const layer of ENCODER) w.i32(...layer);
	// LSTM input and hidden sizes, the final convolution's in and out
	w.i32(LSTM, LSTM, LSTM, 1);
	const tensor = (name: string, shape: number[], half: boolean, value: () => number) => {
		const values = Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, value);
		const nameBytes = Buffer.from(name);
		w.i32(shape.length, nameBytes.length, half ? 1 : 0, ...shape);
		w.bytes(nameBytes);
		if (half) w.f16(values);
		else w.f32(values);
	};
	const small = () => (rand() - 0.5) * 0.2;
	tensor("_model.stft.forward_basis_buffer", [256, 1, 258], true, small);
	ENCODER.forEach(([input, output, kernel], i) => {
		tensor(`_model.encoder.${i}.reparam_conv.weight`, [kernel, input, output], true, small);
		tensor(`_model.encoder.${i}.reparam_conv.bias`, [output], false, small);
	});
	tensor("_model.decoder.rnn.weight_ih", [LSTM, 4 * LSTM], false, small);
	tensor("_model.decoder.rnn.bias_ih", [4 * LSTM], false, small);
	tensor("_model.decoder.rnn.weight_hh", [LSTM, 4 * LSTM], false, small);
	tensor("_model.decoder.rnn.bias_hh", [4 * LSTM], false, small);
	tensor("_model.decoder.decoder.2.weight", [LSTM, 1], true, () => 0);
	tensor("_model.decoder.decoder.2.bias", [1], false, () => (hears === "speech" ? 20 : -20));
	return w.done();
}

export function writeTinyVad(hears: "speech" | "nothing"): string {
	const file = path.join(mkdtempSync(path.join(tmpdir(), "tiny-vad-")), `ggml-silero-test-${hears}.bin`);
	writeFileSync(file, tinyVad(hears));
	return file;
}
