import { describe, expect, it } from "vitest";
import { buildTree, foldersOf } from "./file-tree";

describe("workspace file tree", () => {
	it("nests paths into folders, folders before files, each sorted by name", () => {
		const tree = buildTree(["README.md", "kg/log.md", "kg/entities/person/index.md", "kg/index.md", "CLAUDE.md", "agents/meeting.md"]);
		expect(tree.map((n) => `${n.kind}:${n.path}`)).toEqual(["folder:agents", "folder:kg", "file:CLAUDE.md", "file:README.md"]);
		const kg = tree[1];
		expect(kg?.kind === "folder" && kg.children.map((n) => `${n.kind}:${n.path}`)).toEqual([
			"folder:kg/entities",
			"file:kg/index.md",
			"file:kg/log.md",
		]);
	});

	it("lists a path given twice once and ignores empty segments", () => {
		expect(buildTree(["a/b.md", "a/b.md", "/c.md"])).toEqual([
			{ kind: "folder", name: "a", path: "a", children: [{ kind: "file", name: "b.md", path: "a/b.md" }] },
			{ kind: "file", name: "c.md", path: "c.md" },
		]);
	});

	it("keeps a file name with markup as plain data", () => {
		expect(buildTree(["uploads/abc-<img src=x>.txt"])[0]).toMatchObject({ children: [{ name: "abc-<img src=x>.txt" }] });
	});

	it("names the folders to open for a file", () => {
		expect(foldersOf("kg/entities/person/ada.md")).toEqual(["kg", "kg/entities", "kg/entities/person"]);
		expect(foldersOf("README.md")).toEqual([]);
	});
});
