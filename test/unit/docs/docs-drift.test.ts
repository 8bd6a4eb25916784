/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import agentDoc from "../../../docs/agent.md?raw";
import apiDoc from "../../../docs/api.md?raw";
import architectureDoc from "../../../docs/architecture.md?raw";
import botChannelDoc from "../../../docs/bot-channel.md?raw";
import botFleetDoc from "../../../docs/bot-fleet.md?raw";
import clientDoc from "../../../docs/client.md?raw";
import dashboardDoc from "../../../docs/dashboard.md?raw";
import liveFeedDoc from "../../../docs/live-feed.md?raw";
import mcpDoc from "../../../docs/mcp.md?raw";
import meetingStreamDoc from "../../../docs/meeting-stream.md?raw";
import platformFidelityDoc from "../../../docs/platform-fidelity.md?raw";
import indexDoc from "../../../docs/README.md?raw";
import retentionDoc from "../../../docs/retention.md?raw";
import sandboxDoc from "../../../docs/sandbox.md?raw";
import securityReviewDoc from "../../../docs/security-review.md?raw";
import speechDoc from "../../../docs/speech.md?raw";
import statusDoc from "../../../docs/status-machine.md?raw";
import webhooksDoc from "../../../docs/webhooks.md?raw";
import workspaceDoc from "../../../docs/workspace.md?raw";
import { CompletionReason, ROOM_CLOSE } from "../../../src/bot-channel/protocol";
import { AGENT_PREFIXES, ROUTE_ACCESS } from "../../../src/gateway/route-scopes";
import { MOVES, REASON_OUTCOME, RETRYABLE_REASONS } from "../../../src/meetings/status-machine";
import { WEBHOOK_EVENT_TYPES } from "../../../src/settings/account-settings";
import { tableRows } from "./markdown-table";

describe("docs/status-machine.md", () => {
	it("shows the move table exactly as MOVES holds it", () => {
		// `none` stands for "no record": a step that creates one, or removes one.
		const cell = (statuses: readonly (string | null)[]) => statuses.map((s) => s ?? "none").join(", ");
		const documented = tableRows(statusDoc, "moves").map((row) => `| ${row.join(" | ")} |`);
		const code = MOVES.map((m) => `| ${cell(m.from)} | ${cell([m.to])} | ${m.by.join(", ")} | ${m.on} |`);
		expect(documented, `the table as the code has it:\n${code.join("\n")}`).toEqual(code);
	});

	it("lists every completion reason with the outcome and retryability the code gives it", () => {
		const documented = Object.fromEntries(
			tableRows(statusDoc, "reasons").map(([reason, outcome, retryable]) => [reason, { outcome, retryable: retryable === "yes" }]),
		);
		const code = Object.fromEntries(
			CompletionReason.options.map((reason) => [reason, { outcome: REASON_OUTCOME[reason], retryable: RETRYABLE_REASONS.has(reason) }]),
		);
		expect(documented).toEqual(code);
	});
});

describe("docs/api.md", () => {
	it("lists every route with the access ROUTE_ACCESS gives it, and no other", () => {
		const access = (cell: string) => (cell === "self" ? "public" : cell);
		// `/agent[/api]/x` stands for every form the agent plane answers on: `/agent/api/x`, `/agent/x` and the legacy `/api/x`.
		const forms = (path: string) => (path.startsWith("/agent[/api]") ? AGENT_PREFIXES.map((p) => path.replace("/agent[/api]", p)) : [path]);
		const documented = tableRows(apiDoc, "routes")
			.flatMap(([method, path, who]) => forms(path ?? "").map((p) => `${method} ${p} ${access(who ?? "")}`))
			.sort();
		const code = ROUTE_ACCESS.map(([method, path, a]) => {
			const who = a.kind === "key" ? a.scopes.join(", ") : a.kind;
			return `${method} ${path.replace(/:(\w+)/g, "{$1}")} ${who}`;
		}).sort();
		expect(documented).toEqual(code);
	});
});

describe("docs/webhooks.md", () => {
	it("names every webhook event type the account settings accept", () => {
		const documented = tableRows(webhooksDoc, "events").map(([event]) => event?.replace(/`/g, ""));
		expect(documented.sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
	});
});

describe("docs/bot-channel.md", () => {
	it("gives the close codes the room uses", () => {
		const documented = Object.fromEntries(tableRows(botChannelDoc, "close-codes").map(([code, name]) => [name, Number(code)]));
		expect(documented).toEqual(ROOM_CLOSE);
	});
});

const docs: Record<string, string> = {
	"README.md": indexDoc,
	"agent.md": agentDoc,
	"api.md": apiDoc,
	"architecture.md": architectureDoc,
	"bot-channel.md": botChannelDoc,
	"bot-fleet.md": botFleetDoc,
	"client.md": clientDoc,
	"dashboard.md": dashboardDoc,
	"live-feed.md": liveFeedDoc,
	"mcp.md": mcpDoc,
	"meeting-stream.md": meetingStreamDoc,
	"platform-fidelity.md": platformFidelityDoc,
	"retention.md": retentionDoc,
	"sandbox.md": sandboxDoc,
	"security-review.md": securityReviewDoc,
	"speech.md": speechDoc,
	"status-machine.md": statusDoc,
	"webhooks.md": webhooksDoc,
	"workspace.md": workspaceDoc,
};
/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
	heading
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}_ -]/gu, "")
		.replace(/ /g, "-");
const anchors = Object.fromEntries(
	Object.entries(docs).map(([name, text]) => [name, new Set([...text.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1] ?? "")))]),
);

describe("links between the documents", () => {
	it.each(Object.keys(docs))("%s links only to documents and headings that exist", (name) => {
		const links = [...(docs[name] ?? "").matchAll(/\]\(([\w.-]+\.md)?(?:#([\w-]+))?\)/g)];
		expect(links.length).toBeGreaterThan(0);
		for (const [link, file, anchor] of links) {
			const target = file ?? name;
			expect(Object.keys(docs), `${name}: ${link}`).toContain(target);
			if (anchor) expect(anchors[target], `${name}: ${link}`).toContain(anchor);
		}
	});
});

/** A glob key (relative to this folder) as a repository path. */
function repoPath(key: string): string {
	const parts = ["test", "unit", "docs"];
	for (const part of key.split("/")) {
		if (part === "..") parts.pop();
		else if (part !== ".") parts.push(part);
	}
	return parts.join("/");
}

describe("links from the code", () => {
	/** Every file of the repository's own folders, by path (names only: nothing is loaded). */
	const repoFiles = new Set(
		Object.keys(
			import.meta.glob([
				"../../../{src,durable-objects,bot-host,dashboard,docs,test,scripts,packages,migrations,deploy,examples}/**/*",
				"../../../*.{md,json,toml,ts}",
				"!**/node_modules/**",
				"!**/dist/**",
			]),
		)
			.map(repoPath)
			// A glob leaves out the file that asks.
			.concat("test/unit/docs/docs-drift.test.ts"),
	);
	/** Comments and docs in the code's folders, the documents and the READMEs, as text. */
	const sources = import.meta.glob<string>(
		[
			"../../../{src,durable-objects,bot-host}/**/*.{ts,tsx,mjs,md}",
			"../../../dashboard/src/**/*.{ts,tsx}",
			"../../../docs/*.md",
			"../../../README.md",
			"!**/node_modules/**",
			"!**/*.test.ts",
		],
		{ query: "?raw", import: "default", eager: true },
	);
	const files = Object.entries(sources).map(([key, text]) => ({ path: repoPath(key), text }));

	it("reads the code's folders, the documents and the READMEs", () => {
		expect(files.length).toBeGreaterThan(200);
		expect(repoFiles.has("docs/api.md")).toBe(true);
		expect(repoFiles.has("src/app.ts")).toBe(true);
		expect(repoFiles.has("test/unit/docs/docs-drift.test.ts")).toBe(true);
		expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(["README.md", "docs/api.md", "bot-host/README.md"]));
	});

	it("cites only docs/*.md files and headings that exist", () => {
		const broken = files.flatMap(({ path, text }) =>
			[...text.matchAll(/\bdocs\/([\w-]+\.md)(?:#([\w-]+))?/g)]
				.filter(([, doc = "", anchor]) => !(doc in docs) || (anchor !== undefined && !anchors[doc]?.has(anchor)))
				.map(([link]) => `${path}: ${link}`),
		);
		expect(broken).toEqual([]);
	});

	it("names only repository paths that exist, in backticks or as relative Markdown links", () => {
		const folders = "src|durable-objects|bot-host|dashboard|docs|test|scripts|packages|migrations|deploy|examples";
		const backticked = new RegExp(`\`((?:${folders})/[\\w./-]*\\.[a-z]+)\``, "g");
		const broken = files.flatMap(({ path, text }) => {
			const named = [...text.matchAll(backticked)].map((m) => m[1] ?? "");
			const dir = path.split("/").slice(0, -1);
			// Relative paths: Markdown links in a .md file, and backticked `../…` paths anywhere (a `./…` in a comment is
			// usually an example of a path, not a reference).
			const relative = [
				...(path.endsWith(".md") ? [...text.matchAll(/\]\((\.{1,2}\/[^)#\s]+)/g)] : []),
				...text.matchAll(/`(\.\.\/[\w./-]*\.[a-z]+)`/g),
			];
			const linked = relative.map((m) => {
				const parts = [...dir];
				for (const part of (m[1] ?? "").split("/")) {
					if (part === "..") parts.pop();
					else if (part !== ".") parts.push(part);
				}
				return parts.join("/");
			});
			// A path in a folder's own README may start inside that folder (`test/…` in bot-host/README.md).
			const exists = (target: string) => repoFiles.has(target) || repoFiles.has(`${dir[0]}/${target}`);
			return [...named.filter((target) => !exists(target)), ...linked.filter((target) => !repoFiles.has(target))].map(
				(target) => `${path}: ${target}`,
			);
		});
		expect(broken).toEqual([]);
	});
});
