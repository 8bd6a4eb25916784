/**
 * The Kubernetes manifests (deploy/) checked against the code they deploy: the settings the bot
 * host reads, its drain and probes, the gateway's metrics route and shape. Parsing only: no cluster.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { DEFAULT_PROFILE_DISK_MB } from "../../bot-host/fleet/capacity.ts";
import { FleetMetrics } from "../../src/bot-channel/fleet.ts";
import { RECORDING_MAX_BYTES } from "../../src/bot-channel/protocol.ts";
import { REPO, reachableFrom, settingsRead } from "./deploy/source-files.ts";

// Loose shapes of the Kubernetes objects: the assertions below say what must be there.
// biome-ignore lint/suspicious/noExplicitAny: parsed YAML, checked field by field
type Manifest = { apiVersion: string; kind: string; metadata: { name: string }; spec: any };
interface EnvVar {
	name: string;
	value?: string;
	valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } };
}

function manifests(file: string): Manifest[] {
	return parseAllDocuments(readFileSync(path.join(REPO, "deploy", file), "utf8")).map((doc) => {
		expect(doc.errors).toEqual([]);
		return doc.toJS() as Manifest;
	});
}

const all = [...manifests("bot-host.yaml"), ...manifests("autoscaling.yaml")];
const one = (kind: string) => {
	const found = all.filter((m) => m.kind === kind);
	expect(found, kind).toHaveLength(1);
	return found[0] as Manifest;
};
const hosts = one("StatefulSet");
const pod = hosts.spec.template;
const container = pod.spec.containers[0];
const env: EnvVar[] = container.env;
const envValue = (name: string) => env.find((e) => e.name === name)?.value;
const mebibytes = (quantity: string) => {
	const m = /^(\d+)(Mi|Gi)$/.exec(quantity);
	if (!m) throw new Error(`quantity ${quantity} is not in Mi or Gi`);
	return Number(m[1]) * (m[2] === "Gi" ? 1024 : 1);
};

describe("the bot host StatefulSet", () => {
	it("sets only settings the bot host reads, and every one the fleet needs", () => {
		const read = settingsRead(reachableFrom().files);
		const names = env.map((e) => e.name);
		expect(names.filter((n) => !read.has(n))).toEqual([]);
		expect(names).toEqual(
			expect.arrayContaining([
				"BOT_HOST_ID",
				"BOT_HOST_SLOTS",
				"BOT_HOST_CREDENTIAL_FILE",
				"BOT_CHROMIUM_SANDBOX",
				"BOT_HOST_GATEWAY_URL",
				"BOT_HOST_DRAIN_S",
			]),
		);
		// Tickets come through the gateway with the pod's own credential: no pod holds the queue or its token.
		expect(names).not.toContain("SPAWN_QUEUE_URL");
		expect(names).not.toContain("SPAWN_QUEUE_TOKEN");
		expect(new Set(names).size).toBe(names.length);
	});

	it("takes secrets from a Secret and the host id from the pod's name, never a literal", () => {
		for (const e of env.filter((v) => /SECRET|TOKEN|PASSWORD|KEY/.test(v.name))) {
			expect(e.value, e.name).toBeUndefined();
			expect(e.valueFrom?.secretKeyRef?.key, e.name).toBe(e.name);
		}
		expect(env.find((e) => e.name === "BOT_HOST_ID")?.valueFrom?.fieldRef?.fieldPath).toBe("metadata.name");
	});

	it("gives each pod its own credential, named after the pod, from a Secret the host container never mounts", () => {
		const volumes: { name: string; secret?: { secretName: string }; emptyDir?: { medium?: string } }[] = pod.spec.volumes;
		const mounts = (c: { volumeMounts: { name: string; mountPath: string }[] }) => c.volumeMounts;
		const secretVolumes = volumes.filter((v) => v.secret).map((v) => v.name);
		expect(secretVolumes).toHaveLength(1);
		// The host, which renders users' pages, holds no other pod's credential.
		expect(mounts(container).map((m) => m.name)).not.toContain(secretVolumes[0]);
		const [init] = pod.spec.initContainers;
		const allMount = mounts(init).find((m) => m.name === secretVolumes[0]);
		expect(init.env).toContainEqual({ name: "BOT_HOST_ID", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } });
		// It copies the key named after the pod, and only that one, to a memory volume the host reads.
		const script: string = init.command.join(" ");
		expect(script).toContain(`${allMount?.mountPath}/$BOT_HOST_ID`);
		const file = envValue("BOT_HOST_CREDENTIAL_FILE") ?? "";
		const own = mounts(container).find((m) => file.startsWith(`${m.mountPath}/`));
		expect(own).toBeDefined();
		expect(script).toContain(file);
		expect(volumes.find((v) => v.name === own?.name)?.emptyDir?.medium).toBe("Memory");
		expect(init.securityContext).toMatchObject({ allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
	});

	it("requires Chromium's sandbox (no fall-back to none), with a seccomp profile that lets Chromium make it", () => {
		expect(envValue("BOT_CHROMIUM_SANDBOX")).toBe("on");
		// RuntimeDefault refuses the user namespace Chromium's sandbox needs.
		expect(["Unconfined", "Localhost"]).toContain(container.securityContext.seccompProfile?.type);
	});

	it("gives a draining host longer than its drain before it is killed", () => {
		const drainS = Number(envValue("BOT_HOST_DRAIN_S"));
		expect(drainS).toBeGreaterThan(0);
		expect(pod.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(drainS + 30);
		expect(pod.metadata.annotations).toMatchObject({
			"cluster-autoscaler.kubernetes.io/safe-to-evict": "false",
			"karpenter.sh/do-not-disrupt": "true",
		});
	});

	it("asks for the memory its slots are budgeted at, plus the reserve", () => {
		const slots = Number(envValue("BOT_HOST_SLOTS"));
		const budget = Number(envValue("BOT_MEM_BUDGET_MB"));
		const reserve = Number(envValue("BOT_MEM_RESERVE_MB") ?? 512);
		expect(slots).toBeGreaterThan(0);
		expect(budget).toBeGreaterThan(0);
		const { requests, limits } = container.resources;
		expect(mebibytes(requests.memory)).toBeGreaterThanOrEqual(slots * budget + reserve);
		// Request = limit: the scheduler places a host only where all its slots fit.
		expect(mebibytes(limits.memory)).toBe(mebibytes(requests.memory));
	});

	it("gives /tmp room for every slot's recording at its cap and its browser profile, with caps the Worker takes", () => {
		const slots = Number(envValue("BOT_HOST_SLOTS"));
		const capBytes = Number(envValue("BOT_RECORDING_MAX_BYTES") ?? RECORDING_MAX_BYTES);
		const profileMb = Number(envValue("BOT_PROFILE_DISK_MB") ?? DEFAULT_PROFILE_DISK_MB);
		// A recording the upload would refuse is lost: the cap is at most the Worker's limit.
		expect(capBytes).toBeLessThanOrEqual(RECORDING_MAX_BYTES);
		const mount = container.volumeMounts.find((m: { mountPath: string }) => m.mountPath === "/tmp");
		const tmp = pod.spec.volumes.find((v: { name: string }) => v.name === mount?.name);
		// Past its sizeLimit the pod is evicted, with every bot on it.
		expect(mebibytes(tmp.emptyDir.sizeLimit)).toBeGreaterThanOrEqual(slots * (capBytes / 2 ** 20 + profileMb));
	});

	it("is ready on /health, alive on a path that stays 200 while draining, on the port the host listens on", () => {
		const service = readFileSync(path.join(REPO, "bot-host/service.ts"), "utf8");
		const port = container.ports.find((p: { name: string }) => p.name === container.readinessProbe.httpGet.port);
		expect(port?.containerPort).toBe(8790);
		expect(container.readinessProbe.httpGet.path).toBe("/health");
		const alive = container.livenessProbe.httpGet.path;
		expect(alive).not.toBe("/health");
		expect(service).toContain(`"${alive}"`);
	});

	it("runs as a non-root user without privilege escalation", () => {
		expect(pod.spec.securityContext.runAsNonRoot).toBe(true);
		expect(pod.spec.securityContext.runAsUser).toBeGreaterThan(0);
		expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
		expect(container.securityContext.capabilities.drop).toContain("ALL");
		expect(pod.spec.automountServiceAccountToken).toBe(false);
	});

	it("has a disruption budget over its pods", () => {
		const budget = one("PodDisruptionBudget");
		expect(budget.spec.selector.matchLabels).toEqual(hosts.spec.selector.matchLabels);
		expect(budget.spec.maxUnavailable).toBe(1);
	});
});

describe("the autoscaler", () => {
	const scaled = one("ScaledObject");
	const trigger = scaled.spec.triggers[0];

	it("reads bots_needed from the gateway's metrics route, a GET in the route table", () => {
		expect(scaled.spec.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "StatefulSet", name: hosts.metadata.name });
		expect(trigger.type).toBe("metrics-api");
		const url = new URL(trigger.metadata.url);
		// The route table read as text: importing it would type-check Worker-only code under Node's types.
		const routeTable = readFileSync(path.join(REPO, "src/gateway/route-scopes.ts"), "utf8");
		expect(routeTable).toContain(`["GET", "${url.pathname}",`);
		expect(url.pathname).toBe("/internal/fleet/metrics");
		expect(Object.keys(FleetMetrics.shape)).toContain(trigger.metadata.valueLocation);
		expect(trigger.metadata.valueLocation).toBe("bots_needed");
	});

	it("wants one host per BOT_HOST_SLOTS bots needed", () => {
		expect(trigger.metricType).toBe("AverageValue");
		expect(trigger.metadata.targetValue).toBe(envValue("BOT_HOST_SLOTS"));
	});

	it("presents FLEET_METRICS_TOKEN as a Bearer through a TriggerAuthentication", () => {
		expect(trigger.metadata.authMode).toBe("bearer");
		const auth = one("TriggerAuthentication");
		expect(trigger.authenticationRef.name).toBe(auth.metadata.name);
		expect(auth.spec.secretTargetRef).toEqual([expect.objectContaining({ parameter: "token", key: "FLEET_METRICS_TOKEN" })]);
	});

	it("scales down slowly, one host at a time", () => {
		const down = scaled.spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown;
		expect(down.stabilizationWindowSeconds).toBeGreaterThanOrEqual(300);
		expect(down.policies).toEqual([expect.objectContaining({ type: "Pods", value: 1 })]);
		expect(scaled.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
	});
});

describe("the Worker's deployment (wrangler.toml)", () => {
	it("keeps Workers Logs' invocation log off: it records each request's URL whole, and /ws?api_key= would put a key there", () => {
		const toml = readFileSync(path.join(REPO, "wrangler.toml"), "utf8");
		const logs = /^\[observability\.logs\]\n((?:[^[\n].*\n|\n)*)/m.exec(toml)?.[1] ?? "";
		expect(logs).toMatch(/^invocation_logs = false$/m);
	});
});
