/** The workspace's flat file list (`GET /agent/workspace/tree`) as folders and files. */

export interface TreeFolder {
	kind: "folder";
	name: string;
	path: string;
	children: TreeNode[];
}

export interface TreeFile {
	kind: "file";
	name: string;
	path: string;
}

export type TreeNode = TreeFolder | TreeFile;

/** Folders first, then files, each by name; a path seen twice is listed once. */
export function buildTree(paths: string[]): TreeNode[] {
	const root: TreeFolder = { kind: "folder", name: "", path: "", children: [] };
	for (const path of paths) {
		const segments = path.split("/").filter(Boolean);
		let folder = root;
		segments.forEach((name, i) => {
			const at = segments.slice(0, i + 1).join("/");
			if (i === segments.length - 1) {
				if (!folder.children.some((c) => c.kind === "file" && c.path === at)) folder.children.push({ kind: "file", name, path: at });
				return;
			}
			let next = folder.children.find((c): c is TreeFolder => c.kind === "folder" && c.name === name);
			if (!next) {
				next = { kind: "folder", name, path: at, children: [] };
				folder.children.push(next);
			}
			folder = next;
		});
	}
	sortFolder(root);
	return root.children;
}

function sortFolder(folder: TreeFolder) {
	folder.children.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === "folder" ? -1 : 1));
	for (const child of folder.children) if (child.kind === "folder") sortFolder(child);
}

/** The folders a file sits in, so opening a file deep in the tree shows where it is. */
export function foldersOf(path: string): string[] {
	const segments = path.split("/").filter(Boolean);
	return segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).join("/"));
}
