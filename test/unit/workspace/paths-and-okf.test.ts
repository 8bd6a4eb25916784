import { describe, expect, it } from "vitest";
import { isConceptFile, parseFrontmatter, renderFrontmatter, validateKg } from "../../../src/workspace/okf";
import { isPolicyPath, normalizePath, writeViolation } from "../../../src/workspace/paths";

describe("workspace path governance", () => {
	it("normalizes relative paths and refuses anything that leaves the workspace or touches .git", () => {
		expect(normalizePath("kg/index.md")).toEqual({ ok: true, path: "kg/index.md" });
		expect(normalizePath("./kg//entities/./person/a.md")).toEqual({ ok: true, path: "kg/entities/person/a.md" });
		const refused: [string, RegExp][] = [
			["", /empty/],
			["  ", /empty/],
			[".", /empty/],
			["/etc/passwd", /relative/],
			["../x", /\.\./],
			["kg/../../x", /\.\./],
			["a\\b", /forward slashes/],
			["a\u0000b", /control/],
			["a\nb", /control/],
			[".git/config", /\.git/],
			["sub/.GIT/HEAD", /\.git/],
		];
		for (const [raw, problem] of refused) {
			const checked = normalizePath(raw);
			expect(checked.ok, raw).toBe(false);
			expect(!checked.ok && checked.problem, raw).toMatch(problem);
		}
	});

	it("names policy paths and the agent's violations", () => {
		expect(isPolicyPath("policy/members.json")).toBe(true);
		expect(isPolicyPath("policy")).toBe(true);
		expect(isPolicyPath(".gitignore")).toBe(true);
		expect(isPolicyPath("CLAUDE.md")).toBe(false);
		expect(isPolicyPath("policyish.md")).toBe(false);
		expect(writeViolation("CLAUDE.md")).toBeNull();
		expect(writeViolation("kg/entities/person/ada.md")).toBeNull();
		expect(writeViolation("./policy/members.json")).toMatch(/^policy\/members\.json: policy path/);
		expect(writeViolation("../outside.md")).toMatch(/^\.\.\/outside\.md: .*leave the workspace/);
		expect(writeViolation("uploads/abc-x.pdf")).toMatch(/uploads/);
	});
});

describe("Open Knowledge Format checks", () => {
	it("parses flat frontmatter and keeps the body", () => {
		expect(parseFrontmatter('---\nenabled: true\ncron: 0 9 * * 1-5\nprompt: "Say: hi"\nmodel:\n---\nBody\n')).toEqual({
			data: { enabled: "true", cron: "0 9 * * 1-5", prompt: "Say: hi", model: "" },
			body: "Body\n",
		});
		expect(parseFrontmatter("# no frontmatter\n")).toBeNull();
		expect(parseFrontmatter("---\ntype: x\n")).toBeNull();
		const rendered = renderFrontmatter({ type: "meeting", id: "abc", enabled: true }, "# Title\n");
		expect(parseFrontmatter(rendered)).toEqual({ data: { type: "meeting", id: "abc", enabled: "true" }, body: "# Title\n" });
	});

	it("holds every kg concept file to a non-empty type, and skips index.md, log.md and files outside kg/", () => {
		expect(isConceptFile("kg/index.md")).toBe(false);
		expect(isConceptFile("kg/entities/person/index.md")).toBe(false);
		expect(isConceptFile("kg/log.md")).toBe(false);
		expect(isConceptFile("notes/a.md")).toBe(false);
		expect(isConceptFile("kg/entities/person/ada.md")).toBe(true);
		const findings = validateKg([
			{ path: "kg/index.md", content: "# Index\n" },
			{ path: "kg/b.md", content: "---\ntype:   \n---\n" },
			{ path: "kg/a.md", content: "plain text" },
			{ path: "kg/ok.md", content: "---\ntype: concept\ntitle: Ok\n---\n" },
			{ path: "notes/x.md", content: "plain" },
		]);
		expect(findings.map((f) => f.path)).toEqual(["kg/a.md", "kg/b.md"]);
		expect(findings[0]?.problem).toMatch(/no frontmatter/);
		expect(findings[1]?.problem).toMatch(/type/);
	});
});
