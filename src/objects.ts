import type { Env } from "./env";

/** How each Durable Object is addressed, written once: a meeting's room and stream, a user's account and feed, the IP guard. */
export const meetingRoom = (env: Env, meetingId: number) => env.MEETING_ROOM.get(env.MEETING_ROOM.idFromName(String(meetingId)));
/** A meeting's stream log and live copilot, named by the meeting id as its room is. */
export const meetingStream = (env: Env, meetingId: number) => env.MEETING_STREAM.get(env.MEETING_STREAM.idFromName(String(meetingId)));
export const accountObject = (env: Env, userId: number) => env.ACCOUNT.get(env.ACCOUNT.idFromName(String(userId)));
export const liveFeed = (env: Env, userId: number) => env.LIVE_FEED.get(env.LIVE_FEED.idFromName(String(userId)));
export const agentUser = (env: Env, userId: number) => env.AGENT_USER.get(env.AGENT_USER.idFromName(String(userId)));
/** A git workspace, by its name (src/workspace/workspace-names.ts). */
export const workspaceObject = (env: Env, name: string) => env.WORKSPACE.get(env.WORKSPACE.idFromName(name));
/** The per-IP guard, by its window's name: an address, or `public:<address>` for anonymous reads (gateway/rate-limits.ts). */
export const ipGuard = (env: Env, name: string) => env.IP_GUARD.get(env.IP_GUARD.idFromName(name));

/** The stubs' types, for objects that keep a stub of another: they name no other object's folder. */
export type MeetingStreamStub = ReturnType<typeof meetingStream>;
export type AccountStub = ReturnType<typeof accountObject>;
export type LiveFeedStub = ReturnType<typeof liveFeed>;
