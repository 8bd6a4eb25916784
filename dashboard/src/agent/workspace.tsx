import type { Schemas } from "@meetbot/client";
import { useEffect, useState } from "preact/hooks";
import { abortable, api } from "../api";
import { useCanAct } from "../me";
import { ActionStatus, useAction } from "../settings/status";
import { errorText, when } from "../ui";
import { buildTree, foldersOf, type TreeNode } from "./file-tree";

type WorkspaceGit = Schemas["WorkspaceGit"];

function fileHref(path: string): string {
	return `#/agent/workspace?file=${encodeURIComponent(path)}`;
}

function Tree({ nodes, open, current }: { nodes: TreeNode[]; open: Set<string>; current: string | null }) {
	return (
		<ul class="file-tree">
			{nodes.map((node) =>
				node.kind === "folder" ? (
					<li key={node.path}>
						<details open={open.has(node.path)}>
							<summary>{node.name}/</summary>
							<Tree nodes={node.children} open={open} current={current} />
						</details>
					</li>
				) : (
					<li key={node.path}>
						<a href={fileHref(node.path)} aria-label={node.path} aria-current={node.path === current ? "page" : undefined}>
							{node.name}
						</a>
					</li>
				),
			)}
		</ul>
	);
}

function FileView({ path }: { path: string }) {
	const [content, setContent] = useState<string | null>(null);
	const [error, setError] = useState("");
	useEffect(() => {
		setContent(null);
		setError("");
		const controller = new AbortController();
		abortable(controller.signal)
			.agent.workspace.file(path)
			.then((file) => setContent(file.content))
			.catch((err) => {
				if (!controller.signal.aborted) setError(errorText(err));
			});
		return () => controller.abort();
	}, [path]);
	return (
		<section aria-labelledby="file-heading" class="file-view">
			<h2 id="file-heading">{path}</h2>
			{error && (
				<p role="alert" class="error-banner">
					{error}
				</p>
			)}
			{content === null && !error && <p>Loading…</p>}
			{/* The file is shown as text, whatever it holds (a Markdown or HTML file is never rendered). */}
			{content !== null && <pre class="file-content">{content}</pre>}
		</section>
	);
}

function GitHistory({ git }: { git: WorkspaceGit }) {
	return (
		<section aria-labelledby="git-heading" class="git-history">
			<h2 id="git-heading">History of {git.branch}</h2>
			{git.changes.length > 0 && (
				<p>
					Uncommitted changes: <span class="tool-args">{git.changes.join(", ")}</span>
				</p>
			)}
			{git.kg_findings.length > 0 && (
				<>
					<h3>Knowledge graph findings</h3>
					<ul class="findings">
						{git.kg_findings.map((f) => (
							<li key={f.path + f.problem}>
								<code>{f.path}</code>: {f.problem}
							</li>
						))}
					</ul>
				</>
			)}
			{git.commits.length === 0 ? (
				<p>No commits yet.</p>
			) : (
				<ol class="commits">
					{git.commits.map((c) => (
						<li key={c.sha}>
							<code>{c.sha.slice(0, 8)}</code> <span class="commit-msg">{c.msg}</span>
							<small>
								{" "}
								{c.author}, <time dateTime={c.when}>{when(c.when)}</time>
								{c.files.length > 0 &&
									`, ${c.files.length} file${c.files.length === 1 ? "" : "s"}: ${c.files.slice(0, 5).join(", ")}${c.files.length > 5 ? ", …" : ""}`}
							</small>
						</li>
					))}
				</ol>
			)}
		</section>
	);
}

/** `#/agent/workspace?file=<path>`: the agent's git workspace, a file as text, its history. */
export function WorkspacePanel({ file }: { file: string | null }) {
	const [files, setFiles] = useState<string[] | null>(null);
	const [git, setGit] = useState<WorkspaceGit | null>(null);
	const [error, setError] = useState("");
	const [showHidden, setShowHidden] = useState(false);
	const [state, act] = useAction();
	// Seeding writes a commit: it takes a `bot` key, as every workspace write does.
	const canAct = useCanAct();

	const load = async () => {
		try {
			const [tree, history] = await Promise.all([
				api.agent.workspace.tree(showHidden ? { hidden: "true" } : {}),
				api.agent.workspace.history(),
			]);
			setFiles(tree.files);
			setGit(history);
			setError("");
		} catch (err) {
			setError(errorText(err));
		}
	};
	useEffect(() => {
		void load();
	}, [showHidden]);

	const init = () =>
		act(async () => {
			const answer = await api.agent.workspace.init();
			await load();
			return answer.seeded ? "Workspace initialised." : "The workspace was already initialised.";
		});

	const empty = files !== null && git !== null && files.length === 0 && git.commits.length === 0;
	const open = new Set(file ? foldersOf(file) : []);
	return (
		<div class="workspace-layout">
			<section aria-labelledby="files-heading" class="files">
				<div class="settings-row">
					<h2 id="files-heading">Files</h2>
					<button class="btn" type="button" onClick={() => void load()}>
						Refresh workspace
					</button>
				</div>
				<label class="check">
					<input type="checkbox" checked={showHidden} onChange={(e) => setShowHidden(e.currentTarget.checked)} />
					Show hidden files
				</label>
				{error && (
					<p role="alert" class="error-banner">
						{error}
					</p>
				)}
				{empty && canAct && (
					<div>
						<p>This workspace has not been initialised yet.</p>
						<button class="btn btn-primary" type="button" onClick={() => void init()} disabled={state.kind === "busy"}>
							Initialise workspace
						</button>
					</div>
				)}
				<ActionStatus state={state} />
				{files && files.length > 0 && <Tree nodes={buildTree(files)} open={open} current={file} />}
			</section>
			<div class="workspace-main">
				{file ? <FileView path={file} /> : <p>Choose a file to read it.</p>}
				{git && <GitHistory git={git} />}
			</div>
		</div>
	);
}
