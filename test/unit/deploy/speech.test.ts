/**
 * The speech service's image (bot-host/speech/Dockerfile) and manifest (deploy/speech.yaml) held
 * against its code: the image copies every file bot-host/speech/main.ts reaches and installs the
 * packages it loads at the project's versions; the manifest sets only settings the service reads,
 * names a model inside a mounted volume, and serves and probes the port it listens on.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { REPO, reachableFrom } from "../../e2e/deploy/source-files.ts";

const ENTRY = "bot-host/speech/main.ts";
const dockerfile = readFileSync(path.join(REPO, "bot-host/speech/Dockerfile"), "utf8");
const manifests = parseAllDocuments(readFileSync(path.join(REPO, "deploy/speech.yaml"), "utf8")).map((doc) => doc.toJS());
const project = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { dependencies: Record<string, string> };

/** The settings main.ts reads through its readers (`setting("NAME")`, `whole("NAME", …)`). */
function settingsRead(): Set<string> {
	const source = readFileSync(path.join(REPO, ENTRY), "utf8");
	return new Set([...source.matchAll(/\b(?:setting|whole)\(\s*"([A-Z][A-Z0-9_]*)"/g)].map((m) => m[1] ?? ""));
}

describe("the speech service image", () => {
	it("copies every file the service reaches, and no tests", () => {
		const { files } = reachableFrom(ENTRY);
		expect(files.length).toBeGreaterThan(5);
		for (const file of files) expect(file, file).toMatch(/^bot-host\/speech\/[^/]+\.ts$/);
		expect(dockerfile).toMatch(/^COPY bot-host\/speech\/\*\.ts bot-host\/speech\/$/m);
		// The build context (.dockerignore, shared with the bot host image) has the service and not its tests.
		const ignored = readFileSync(path.join(REPO, ".dockerignore"), "utf8").split("\n");
		expect(ignored).toContain("!bot-host");
		expect(ignored).toContain("bot-host/speech/test");
	});

	it("installs the binding and one prebuilt platform package at the project's version, with no install scripts", () => {
		const { packages } = reachableFrom(ENTRY);
		const binding = readFileSync(path.join(REPO, "bot-host/speech/whisper-binding.ts"), "utf8");
		const required = [...binding.matchAll(/createRequire\([^)]*\)\("([^"]+)"\)/g)].map((m) => m[1]);
		expect(required).toEqual(["@fugood/whisper.node"]);
		const version = project.dependencies["@fugood/whisper.node"];
		expect(dockerfile).toContain(`@fugood/whisper.node@${version}`);
		expect(dockerfile).toContain(`"@fugood/node-whisper-linux-\${arch}@${version}"`);
		expect(dockerfile).toMatch(/--ignore-scripts/);
		expect(dockerfile).toMatch(/--omit=optional/);
		for (const name of packages) expect(dockerfile, name).toMatch(new RegExp(` ${name.replace("/", "\\/")}@`));
		expect(dockerfile).toMatch(/^USER node$/m);
		expect(dockerfile).toMatch(/^CMD \["node", "bot-host\/speech\/main\.ts"\]$/m);
	});
});

describe("deploy/speech.yaml", () => {
	const deployment = manifests.find((m) => m?.kind === "Deployment");
	const service = manifests.find((m) => m?.kind === "Service");
	const container = deployment.spec.template.spec.containers[0];
	const env = new Map<string, string>(container.env.map((e: { name: string; value: string }) => [e.name, e.value]));

	it("sets only settings the service reads, and names a model inside a mounted volume", () => {
		const read = settingsRead();
		expect([...env.keys()].filter((name) => !read.has(name))).toEqual([]);
		const model = env.get("SPEECH_MODEL") ?? "";
		const mounts: { mountPath: string }[] = container.volumeMounts;
		expect(mounts.some((m) => model.startsWith(`${m.mountPath}/`))).toBe(true);
		// The init container writes the file the service is told to load.
		const init = deployment.spec.template.spec.initContainers[0];
		const modelName = init.env.find((e: { name: string }) => e.name === "MODEL").value;
		expect(model).toBe(`/models/ggml-${modelName}.bin`);
	});

	it("serves, probes and exposes the port the service listens on, inside the cluster only", () => {
		const port = Number(env.get("SPEECH_PORT"));
		expect(env.get("SPEECH_HOST")).toBe("0.0.0.0");
		expect(container.ports).toEqual([{ name: "http", containerPort: port }]);
		expect(container.readinessProbe.httpGet).toEqual({ path: "/health", port: "http" });
		expect(service.spec.ports).toEqual([{ name: "http", port, targetPort: "http" }]);
		expect(service.spec.type ?? "ClusterIP").toBe("ClusterIP");
		expect(Number(env.get("SPEECH_THREADS"))).toBe(Number(container.resources.requests.cpu));
	});
});
