/**
 * What a new workspace starts with (docs/workspace.md, "Files and commits"), committed as `seed`
 * by the user. Git keeps no empty directories, so each seeded folder holds a README.
 */
export const SEED_MESSAGE = "seed";

const today = () => new Date().toISOString().slice(0, 10);

const entityIndex = (type: string, what: string) =>
	`# ${type[0]?.toUpperCase()}${type.slice(1)} entities\n\n${what}\nOne file per entity: \`kg/entities/${type}/<slug>.md\`, with frontmatter \`type: ${type}\`, \`id\` and \`title\`.\n`;

export function seedFiles(): { path: string; content: string }[] {
	return [
		{ path: ".gitignore", content: "# Uploads are stored beside the repository, not in it.\nuploads/\n" },
		{
			path: "CLAUDE.md",
			content:
				"# Instructions\n\nThis is your workspace: a git repository your agent reads and edits.\n\n" +
				"- Keep knowledge in `kg/` (Open Knowledge Format v0.1): every concept file starts with frontmatter that has a `type`.\n" +
				"- Meetings land in `kg/entities/meeting/`; people, companies and products in their entity folders.\n" +
				"- Routines are files in `routines/` (frontmatter `enabled`, `cron`, `prompt`).\n" +
				"- Edit this file to tell your agent how to work for you.\n",
		},
		{
			path: "README.md",
			content:
				"# Workspace\n\nA git repository per user: your agent's files, its knowledge graph and its routines.\n\n" +
				"- `CLAUDE.md`: instructions for the agent\n- `agents/meeting.md`: the meeting copilot's settings\n" +
				"- `kg/`: the knowledge graph\n- `routines/`: scheduled prompts\n- `skills/`, `views/`: your own material\n",
		},
		{
			path: "onboarding.md",
			content:
				"# Getting started\n\n1. Read `CLAUDE.md` and make it yours.\n2. Send a bot to a meeting: the copilot writes the meeting to `kg/entities/meeting/`.\n" +
				"3. Add a routine: a file in `routines/` with `enabled`, `cron` and `prompt` in its frontmatter.\n",
		},
		{
			path: "agents/meeting.md",
			content:
				"---\nenabled: true\nmodel:\ncadence_segments: 4\ncard_kinds: person,company,product,action_item\nwrite_meeting_doc: true\n---\n" +
				"# Meeting copilot\n\nFollows the transcript while processing is on: notes per segment, and every few segments cards for the kinds above.\n" +
				"An empty `model` uses your account's default model.\n",
		},
		{
			path: "kg/index.md",
			content:
				"---\nokf_version: 0.1\n---\n# Knowledge graph\n\n" +
				"* [People](entities/person/index.md) — people met in meetings\n" +
				"* [Companies](entities/company/index.md) — companies and organizations\n" +
				"* [Products](entities/product/index.md) — products and services\n" +
				"* [Meetings](entities/meeting/index.md) — one document per meeting\n" +
				"* [Log](log.md) — what changed, newest first\n",
		},
		{ path: "kg/log.md", content: `# Log\n\n## ${today()}\n\n- Workspace created.\n` },
		{ path: "kg/entities/person/index.md", content: entityIndex("person", "People met in meetings.") },
		{ path: "kg/entities/company/index.md", content: entityIndex("company", "Companies and organizations.") },
		{ path: "kg/entities/product/index.md", content: entityIndex("product", "Products and services.") },
		{ path: "kg/entities/meeting/index.md", content: entityIndex("meeting", "One document per meeting, written when it ends.") },
		{
			path: "routines/README.md",
			content:
				"# Routines\n\nEach `routines/<name>.md` (other than this README) is a routine:\n\n" +
				"```\n---\nenabled: true\ncron: 0 9 * * 1-5\nprompt: Summarize yesterday's meetings\n---\nOptional text appended to the prompt.\n```\n",
		},
		{ path: "skills/README.md", content: "# Skills\n\nReusable instructions the agent can follow, one file each.\n" },
		{ path: "views/README.md", content: "# Views\n\nSaved views over the knowledge graph.\n" },
	];
}
