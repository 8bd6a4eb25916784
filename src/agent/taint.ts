/**
 * The prompt-injection rule (docs/agent.md#text-other-people-wrote). A model may follow
 * instructions hidden in text other people wrote: transcripts, meeting chat, meeting titles and
 * notes (calendar invitations), files another member or a cloned repository wrote. Once such
 * text enters a turn (a tool result, the session's history, a plan file), the turn is tainted,
 * and what it would do where others see it (a bot sent or stopped, words said or posted in a
 * meeting, a commit to a shared workspace) is held for the user's confirmation instead of done.
 * A turn that read only the user's own data acts directly.
 */

import { homeWorkspace } from "../workspace/workspace-names";
import type { FileWriter } from "../workspace/workspace-types";

/** Why a turn is tainted (which tool or input brought other people's words in); null: it is not. */
export type Taint = string | null;

/** The meeting copilot writes each meeting's transcript summary here (src/agent/copilot-document.ts): other people's words. */
const MEETING_DOCUMENTS = "kg/entities/meeting/";

/** A workspace other users see: a commit there acts where others see it. */
export const isSharedWorkspace = (workspace: string): boolean => workspace.startsWith("shared:");

/**
 * Whether a file of a workspace is the user's own text: last written by a turn of theirs that
 * had not read other people's words. In their home workspace a file no user wrote (the seed,
 * what they had before writers were recorded) is theirs too, except the meeting documents the
 * copilot writes from transcripts; in a shared or cloned workspace it is someone else's.
 */
export function isOwnFile(workspace: string, userId: number, path: string, writer: FileWriter | undefined): boolean {
	if (writer) return writer.userId === userId && !writer.tainted;
	return workspace === homeWorkspace(userId) && !path.startsWith(MEETING_DOCUMENTS);
}

/** The taint a tool's result brings, named for the user. */
export const taintBy = (tool: string): string => `${tool} brought text other people wrote into this turn`;
