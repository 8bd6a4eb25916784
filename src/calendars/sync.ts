/**
 * One calendar sync: fetch the feed, import its events, and bring the user's planned meetings
 * in line with them. Each event's mapping (connection, UID) → meeting remembers what was last
 * imported, so a second sync of an unchanged feed writes nothing and counts nothing.
 *
 * Per event (sorted by start, so the earliest event on a shared link gets the plan):
 * - already planned here: moved when the event or the connection's settings changed (updated);
 *   a live meeting is left alone; a plan that is gone (done, or deleted by the user) is made
 *   again only once the event itself changes (e.g. a series moves on to its next occurrence).
 * - new here: joins the meeting another of the user's calendars plans for the same UID, or
 *   adopts the user's manual plan on the same link (updated), or becomes a new plan (created).
 *   A link held by another event's open meeting defers the event until that meeting is over.
 * - cancelled, or gone from the feed: its plan is cancelled (cancelled). A meeting another
 *   calendar also plans, or an adopted manual plan, stays and only loses this source.
 * - in the feed but not read (the import's instance or time budget ran out first): left as it is.
 */
import { isUniqueViolation } from "../db";
import type { CalendarConnectionRow, CalendarEventRow, MeetingRow } from "../db/schema";
import type { Env } from "../env";
import { errorText } from "../error-text";
import { openMeetingsOf } from "../meetings/meeting-store";
import { announcePlanSteps } from "../meetings/status-writes";
import { outboundPolicy } from "../outbound/url-guard";
import { setting } from "../settings/deployment-defaults";
import { armAheadMs, armImportedPlans, type RemovedPlan } from "./auto-join-arming";
import { passesRules, rulesOf } from "./auto-join-rules";
import {
	creationSteps,
	deleteMapping,
	deletePlan,
	insertPlan,
	type MappingWrite,
	type PlannedEvent,
	type PlanRemoval,
	planRowOf,
	refreshSources,
	removalSteps,
	runBatch,
	runBatched,
	scheduleIdlePlan,
	updatePlan,
	upsertMapping,
} from "./calendar-plans";
import {
	addressesOf,
	eventMappingsOfUser,
	feedAddress,
	isoWithOffset,
	nextSyncAt,
	type SyncCounts,
	type SyncStamp,
	saveSyncCursor,
	setNextSync,
	takeSyncLease,
	zeroCounts,
} from "./calendar-store";
import { recordSync } from "./connection-writes";
import { fetchFeed } from "./feed-fetch";
import { type FeedImport, type ImportedEvent, importFeedInSteps } from "./ics-import";
import { importFromProvider } from "./oauth/provider-sync";
import { keepPushChannel } from "./oauth/push";

export interface SyncContext {
	now: Date;
}

/** Fetches, imports and reconciles; every failure ends as a stamp with `last_error`, never a throw. */
export async function syncConnection(env: Env, connection: CalendarConnectionRow, ctx: SyncContext): Promise<SyncStamp> {
	let counts = zeroCounts();
	let error: string | null = null;
	// Out of line first: a sync that never finishes (a feed that exhausts the CPU limit) must
	// not stay the first due connection and take every later batch down with it.
	await setNextSync(env, connection.id, nextSyncAt(env, ctx.now));
	try {
		const imported = connection.kind === "ics" ? await importIcs(env, connection, ctx) : await importFromProvider(env, connection, ctx.now);
		if (imported.ok) {
			const rules = rulesOf(connection);
			const me = await addressesOf(env, connection);
			const events = imported.events.filter((event) => passesRules(event, rules, me));
			counts = await reconcile(env, connection, events, imported.unread, ctx);
			error = imported.warning;
			if ("cursor" in imported) await saveSyncCursor(env, connection.id, typeof imported.cursor === "string" ? imported.cursor : null);
		} else error = imported.error;
	} catch (err) {
		// Internals stay in the log (without the address); the stamp says only that it failed.
		console.error("calendar sync failed", connection.id, errorText(err));
		error = "The calendar could not be synced; it will be tried again";
	}
	const stamp: SyncStamp = {
		calendar_id: connection.id,
		calendar_name: connection.name,
		last_sync: isoWithOffset(ctx.now),
		last_error: error,
		counts,
	};
	await recordSync(env, connection.id, {
		lastSyncAt: stamp.last_sync,
		lastError: error,
		lastCounts: counts,
		nextSyncAt: nextSyncAt(env, ctx.now),
	});
	if (connection.kind !== "ics" && error === null) await keepPushChannel(env, connection, ctx.now);
	return stamp;
}

/** An ICS connection's feed, fetched and imported within the deployment's limits. */
async function importIcs(env: Env, connection: CalendarConnectionRow, ctx: SyncContext): Promise<FeedImport> {
	const address = await feedAddress(env, connection);
	const feed = address
		? await fetchFeed(address, outboundPolicy(env), {
				maxBytes: setting(env, "CALENDAR_FEED_MAX_BYTES"),
				timeoutMs: setting(env, "CALENDAR_FEED_TIMEOUT_S") * 1000,
			})
		: { ok: false as const, error: "No calendar feed address is set" };
	return feed.ok
		? await importFeedInSteps(feed.text, {
				now: ctx.now,
				horizonMs: setting(env, "CALENDAR_IMPORT_HORIZON_DAYS") * 24 * 3600_000,
				maxEvents: setting(env, "CALENDAR_FEED_MAX_EVENTS"),
				maxInstances: setting(env, "CALENDAR_FEED_MAX_INSTANCES"),
				maxMs: setting(env, "CALENDAR_IMPORT_BUDGET_MS"),
			})
		: feed;
}

export { takeSyncLease };

/** A short, stable digest: equal digests mean nothing to write. */
export function digest(value: unknown): string {
	const text = JSON.stringify(value);
	let h1 = 0xdeadbeef;
	let h2 = 0x41c6ce57;
	for (let i = 0; i < text.length; i++) {
		const ch = text.charCodeAt(i);
		h1 = Math.imul(h1 ^ ch, 2654435761);
		h2 = Math.imul(h2 ^ ch, 1597334677);
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return `${(h2 >>> 0).toString(16).padStart(8, "0")}${(h1 >>> 0).toString(16).padStart(8, "0")}`;
}

const eventDigest = (e: PlannedEvent) =>
	digest([e.occurrence.start.toISOString(), e.title, e.link?.constructed_meeting_url ?? null, e.attendees]);
const settingsDigest = (c: CalendarConnectionRow) => digest([c.name, c.autoJoin, c.botName]);
const linkKey = (platform: string, nativeId: string | null) => (nativeId ? `${platform}/${nativeId}` : null);
const isPlannedRow = (row: MeetingRow | undefined) => row !== undefined && (row.status === "idle" || row.status === "scheduled");

interface UserState {
	mine: Map<string, CalendarEventRow>;
	/** The user's other connections' mappings that point at a meeting, by UID. */
	others: Map<string, CalendarEventRow[]>;
	/** Meeting ids any calendar event of the user plans, and those another connection plans. */
	mapped: Set<number>;
	plannedElsewhere: Set<number>;
	open: Map<number, MeetingRow>;
	/** Which open meeting holds each link. */
	linkHolder: Map<string, number>;
}

async function loadUserState(env: Env, connection: CalendarConnectionRow): Promise<UserState> {
	const state: UserState = {
		mine: new Map(),
		others: new Map(),
		mapped: new Set(),
		plannedElsewhere: new Set(),
		open: new Map(),
		linkHolder: new Map(),
	};
	const mappings = await eventMappingsOfUser(env, connection.userId);
	for (const row of mappings) {
		if (row.meetingId !== null) state.mapped.add(row.meetingId);
		if (row.connectionId === connection.id) state.mine.set(row.uid, row);
		else if (row.meetingId !== null) {
			state.others.set(row.uid, [...(state.others.get(row.uid) ?? []), row]);
			state.plannedElsewhere.add(row.meetingId);
		}
	}
	const open = await openMeetingsOf(env, connection.userId);
	for (const row of open) {
		state.open.set(row.id, row);
		const key = linkKey(row.platform, row.nativeMeetingId);
		if (key) state.linkHolder.set(key, row.id);
	}
	return state;
}

/** `unread`: UIDs the feed has that the import did not get to (a budget ran out); their plans stay as they are. */
async function reconcile(
	env: Env,
	connection: CalendarConnectionRow,
	events: ImportedEvent[],
	unread: Set<string>,
	ctx: SyncContext,
): Promise<SyncCounts> {
	const counts = zeroCounts();
	const now = ctx.now.toISOString();
	const state = await loadUserState(env, connection);
	const settingsFp = settingsDigest(connection);
	const mapping = (uid: string, fields: Partial<MappingWrite>): MappingWrite => ({
		connectionId: connection.id,
		uid,
		userId: connection.userId,
		meetingId: null,
		state: "planned",
		eventFingerprint: null,
		settingsFingerprint: settingsFp,
		adopted: false,
		...fields,
	});
	const writes: D1PreparedStatement[] = [];
	const refresh = new Set<number>();
	const removed: RemovedPlan[] = [];
	const removals: PlanRemoval[] = [];
	const inserts: { event: PlannedEvent; fp: string }[] = [];
	const adoptedNow = new Set<number>();
	const toSchedule: { row: MeetingRow; event: PlannedEvent }[] = [];

	const upcoming = events
		.filter((e): e is PlannedEvent => !e.cancelled && e.occurrence !== null)
		.sort((a, b) => a.occurrence.start.getTime() - b.occurrence.start.getTime());
	for (const event of upcoming) {
		const fp = eventDigest(event);
		const known = state.mine.get(event.uid);
		const current = known?.meetingId != null ? state.open.get(known.meetingId) : undefined;
		const newKey = linkKey(event.link?.platform ?? "unknown", event.link?.native_meeting_id ?? null);
		if (known?.state === "planned" && current) {
			if (!isPlannedRow(current)) continue; // the bot lifecycle owns it now
			if (known.eventFingerprint === fp && known.settingsFingerprint === settingsFp) continue;
			const holder = newKey ? state.linkHolder.get(newKey) : undefined;
			const keepLink = holder !== undefined && holder !== current.id;
			if (!keepLink) moveLink(state, current, newKey);
			toSchedule.push({ row: current, event });
			writes.push(updatePlan(env, current.id, event, { keepTitle: known.adopted && hasTitle(current), keepLink }, now));
			writes.push(upsertMapping(env, mapping(event.uid, { meetingId: current.id, eventFingerprint: fp, adopted: known.adopted }), now));
			refresh.add(current.id);
			counts.updated++;
			continue;
		}
		// Gone (done, or deleted by the user) and unchanged since: nothing to plan again.
		if (known?.state === "planned" && known.eventFingerprint === fp) continue;
		if (!event.withinHorizon) continue;

		const shared = (state.others.get(event.uid) ?? []).map((o) => state.open.get(o.meetingId ?? -1)).find((m) => m !== undefined);
		if (shared) {
			const adopted = (state.others.get(event.uid) ?? []).some((o) => o.meetingId === shared.id && o.adopted);
			writes.push(upsertMapping(env, mapping(event.uid, { meetingId: shared.id, eventFingerprint: fp, adopted }), now));
			if (isPlannedRow(shared)) {
				refresh.add(shared.id);
				counts.updated++;
			}
			continue;
		}
		const holderId = newKey ? state.linkHolder.get(newKey) : undefined;
		if (holderId !== undefined) {
			const holder = state.open.get(holderId);
			if (holder && isPlannedRow(holder) && !state.mapped.has(holder.id)) {
				// The user's own plan on this link: the calendar adopts it, and it outlives the calendar.
				state.mapped.add(holder.id);
				adoptedNow.add(holder.id);
				toSchedule.push({ row: holder, event });
				writes.push(updatePlan(env, holder.id, event, { keepTitle: hasTitle(holder), keepLink: true }, now));
				writes.push(upsertMapping(env, mapping(event.uid, { meetingId: holder.id, eventFingerprint: fp, adopted: true }), now));
				refresh.add(holder.id);
				counts.updated++;
			} else if (known?.state !== "deferred") {
				writes.push(upsertMapping(env, mapping(event.uid, { state: "deferred" }), now));
			}
			continue;
		}
		if (newKey) state.linkHolder.set(newKey, -1 - inserts.length); // held by a plan made below
		inserts.push({ event, fp });
	}

	// Cancelled events, and events no longer in the feed.
	const inFeed = new Map(events.map((e) => [e.uid, e]));
	for (const known of state.mine.values()) {
		if (unread.has(known.uid)) continue;
		const event = inFeed.get(known.uid);
		if (event && !event.cancelled) continue;
		if (event?.cancelled && known.state === "cancelled") continue;
		const current = known.meetingId !== null ? state.open.get(known.meetingId) : undefined;
		writes.push(
			event
				? upsertMapping(env, mapping(known.uid, { state: "cancelled", settingsFingerprint: null }), now)
				: deleteMapping(env, connection.id, known.uid),
		);
		if (known.state !== "planned" || !current || !isPlannedRow(current)) continue;
		if (state.plannedElsewhere.has(current.id) || known.adopted) refresh.add(current.id);
		else {
			removals.push({ row: current, statement: writes.push(deletePlan(env, current)) - 1 });
			removed.push({ row: current, armedFor: known.armedFor });
		}
		counts.cancelled++;
	}

	const created = await insertPlans(env, connection, inserts, now);
	const fresh: number[] = [];
	const armHorizon = ctx.now.getTime() + armAheadMs(env);
	for (const { event, fp, row } of created) {
		const meetingId = row?.id ?? null;
		if (meetingId === null) writes.push(upsertMapping(env, mapping(event.uid, { state: "deferred" }), now));
		else {
			// Made with its one source already written: no refresh needed, and only a plan due
			// soon has a room to arm (see auto-join-arming.ts).
			writes.push(upsertMapping(env, mapping(event.uid, { meetingId, eventFingerprint: fp }), now));
			if (connection.autoJoin && event.link && event.occurrence.start.getTime() <= armHorizon) fresh.push(meetingId);
			counts.created++;
		}
	}
	for (const id of refresh) writes.push(refreshSources(env, id, now));
	for (const { row, event } of toSchedule) await scheduleIdlePlan(env, row, event);
	const results = await runBatched(env, writes);
	const made = created.flatMap((c) => (c.row ? [c.row] : []));
	await announcePlanSteps(env, connection.userId, [...creationSteps(made), ...removalSteps(removals, results)]);
	await armImportedPlans(env, [...refresh, ...fresh], removed, ctx, adoptedNow);
	return counts;
}

function hasTitle(row: MeetingRow): boolean {
	return typeof row.data.title === "string" && row.data.title !== "";
}

function moveLink(state: UserState, row: MeetingRow, newKey: string | null) {
	const oldKey = linkKey(row.platform, row.nativeMeetingId);
	if (oldKey && state.linkHolder.get(oldKey) === row.id) state.linkHolder.delete(oldKey);
	if (newKey) state.linkHolder.set(newKey, row.id);
}

/** New plans in batches; a batch that hits a link taken meanwhile is retried one by one. */
async function insertPlans(env: Env, connection: CalendarConnectionRow, inserts: { event: PlannedEvent; fp: string }[], now: string) {
	const made: { event: PlannedEvent; fp: string; row: MeetingRow | null }[] = [];
	const statement = (e: PlannedEvent) => insertPlan(env, connection, e, now);
	for (let i = 0; i < inserts.length; i += 100) {
		const chunk = inserts.slice(i, i + 100);
		try {
			const results = await runBatch(
				env,
				chunk.map(({ event }) => statement(event)),
			);
			for (const [k, item] of chunk.entries()) made.push({ ...item, row: planRowOf(results[k] ?? null) });
		} catch (err) {
			if (!isUniqueViolation(err)) throw err;
			for (const item of chunk) {
				try {
					made.push({ ...item, row: planRowOf(await statement(item.event).run()) });
				} catch (one) {
					if (!isUniqueViolation(one)) throw one;
					made.push({ ...item, row: null });
				}
			}
		}
	}
	return made;
}
