// `npm run models -- <name>`: fetches a whisper.cpp ggml model (base.en, small, large-v3-turbo-q5_0,
// …) from whisper.cpp's published place on Hugging Face into the local models folder, checks its
// SHA-1 where whisper.cpp publishes one (models/README.md), and says plainly when it cannot.
// `npm run models -- silero` fetches the silero VAD model (docs/speech.md, SPEECH_VAD_MODEL).
// `npm start` serves the newest model there; SPEECH_MODEL=<path> takes a file from disk instead.
import { createHash } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { modelsDir } from "./local-speech.mjs";
import { localStateDir } from "./local-stack.mjs";

const WHISPER_BASE = "https://huggingface.co/ggerganov/whisper.cpp/resolve/main";
const VAD_BASE = "https://huggingface.co/ggml-org/whisper-vad/resolve/main";
/** SHA-1 of each model whisper.cpp's models/README.md lists. */
const PUBLISHED_SHA1 = {
	tiny: "bd577a113a864445d4c299885e0cb97d4ba92b5f",
	"tiny.en": "c78c86eb1a8faa21b369bcd33207cc90d64ae9df",
	base: "465707469ff3a37a2b9b8d8f89f2f99de7299dac",
	"base.en": "137c40403d78fd54d454da0f9bd998f78703390c",
	small: "55356645c2b361a969dfd0ef2c5a50d530afd8d5",
	"small.en": "db8a495a91d927739e50b3fc1cc4c6b8f6c2d022",
	"small.en-tdrz": "b6c6e7e89af1a35c08e6de56b66ca6a02a2fdfa1",
	medium: "fd9727b6e1217c2f614f9b698455c4ffd82463b4",
	"medium.en": "8c30f0e44ce9560643ebd10bbe50cd20eafd3723",
	"large-v1": "b1caaf735c4cc1429223d5a74f0f4d0b9b59a299",
	"large-v2": "0f4c8e34f21cf1a914c59d8b3ce882345ad349d6",
	"large-v2-q5_0": "00e39f2196344e901b3a2bd5814807a769bd1630",
	"large-v3": "ad82bf6a9043ceed055076d0fd39f5f186ff8062",
	"large-v3-q5_0": "e6e2ed78495d403bef4b7cff42ef4aaadcfea8de",
	"large-v3-turbo": "4af2b29d7ec73d781377bfd1758ca957a807e941",
	"large-v3-turbo-q5_0": "e050f7970618a659205450ad97eb95a18d69c9ee",
};
const VAD_MODELS = { silero: "silero-v5.1.2", "silero-v5.1.2": "silero-v5.1.2" };

function fail(message) {
	process.stderr.write(`${message}\n`);
	process.exit(1);
}

const name = process.argv[2];
if (!name || !/^[a-z0-9][a-z0-9._-]*$/i.test(name)) {
	fail(
		[
			"Usage: npm run models -- <name>   e.g. base.en (English, 142 MiB), small (multilingual, 466 MiB), silero (VAD)",
			`Known: ${Object.keys(PUBLISHED_SHA1).join(", ")}; others on ${WHISPER_BASE.replace("/resolve/main", "")} by their ggml-<name>.bin name.`,
		].join("\n"),
	);
}
const vad = VAD_MODELS[name];
const file = `ggml-${vad ?? name}.bin`;
const url = `${vad ? VAD_BASE : WHISPER_BASE}/${file}`;
const dir = modelsDir(localStateDir());
const target = path.join(dir, file);
if (existsSync(target)) {
	process.stdout.write(`${target} is already here; npm start serves it.\n`);
	process.exit(0);
}
mkdirSync(dir, { recursive: true });

let res;
try {
	res = await fetch(url, { redirect: "follow", signal: AbortSignal.timeout(30_000) });
} catch (err) {
	fail(
		[
			`Could not reach ${new URL(url).host} (${err?.cause?.code ?? err?.message ?? err}): this machine seems to be offline.`,
			`On a machine with internet, download ${url}`,
			`and copy it to ${target}, or point SPEECH_MODEL at the file.`,
		].join("\n"),
	);
}
if (!res.ok) fail(`${url} answered ${res.status}: is "${name}" a whisper.cpp model name? (npm run models prints the known ones)`);
const total = Number(res.headers.get("content-length") ?? 0);
const partial = `${target}.part`;
const hash = createHash("sha1");
let received = 0;
let shown = 0;
const progress = new TransformStream({
	transform(chunk, controller) {
		hash.update(chunk);
		received += chunk.length;
		if (total && received - shown > total / 20) {
			shown = received;
			process.stdout.write(`  ${Math.round((received / total) * 100)}% of ${Math.round(total / 1048576)} MiB\n`);
		}
		controller.enqueue(chunk);
	},
});
try {
	await pipeline(Readable.fromWeb(res.body.pipeThrough(progress)), createWriteStream(partial));
} catch (err) {
	rmSync(partial, { force: true });
	fail(`The download of ${url} broke off: ${err?.message ?? err}`);
}
if (total && received !== total) {
	rmSync(partial, { force: true });
	fail(`The download of ${url} is ${received} bytes, not the ${total} announced: try again.`);
}
const expected = PUBLISHED_SHA1[name];
const sha1 = hash.digest("hex");
if (expected && sha1 !== expected) {
	rmSync(partial, { force: true });
	fail(`${file} has SHA-1 ${sha1}, not the ${expected} whisper.cpp publishes: not kept.`);
}
renameSync(partial, target);
process.stdout.write(
	`${target} (${Math.round(received / 1048576)} MiB${expected ? ", SHA-1 checked" : ", no published SHA-1 to check"}).\n` +
		(vad ? "npm start uses it as SPEECH_VAD_MODEL.\n" : "npm start now runs the speech service with it.\n"),
);
