/** What a test webhook came to (POST /user/webhook/test, docs/webhooks.md#test-event), as one sentence. Pure. */
import type { Schemas } from "@meetbot/client";

type TestResult = Pick<Schemas["WebhookTestResult"], "status_code" | "duration_ms" | "error" | "target_host"> & { outcome: string };

/** "Test webhook delivered to hooks.example.com: HTTP 200 in 45 ms." and the like for each outcome. */
export function webhookTestWords(result: TestResult): string {
	const host = result.target_host || "the webhook URL";
	const took = result.duration_ms === null ? "" : ` in ${result.duration_ms} ms`;
	if (result.outcome === "delivered") return `Test webhook delivered to ${host}: HTTP ${result.status_code}${took}.`;
	if (result.outcome === "blocked") return `Test webhook not sent to ${host}: ${result.error ?? "the outbound guard refused the address"}.`;
	if (result.status_code !== null)
		return `Test webhook to ${host} failed: it answered HTTP ${result.status_code}${took}${result.error ? ` (${result.error})` : ""}.`;
	return `Test webhook to ${host} failed: ${result.error ?? "no answer"}${result.duration_ms === null ? "" : ` after ${result.duration_ms} ms`}.`;
}
