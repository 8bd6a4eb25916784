import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import { call, json } from "../support";

/**
 * ICS feeds for the calendar tests, served by the local receiver (a real HTTP server, see
 * test/receiver/webhook-receiver.ts). Fixture files carry dates relative to today, written
 * `{{D+3}}` (YYYYMMDD, UTC) so that "upcoming" stays upcoming whenever the tests run.
 */

/** YYYYMMDD of today (UTC) plus `days`. */
export function day(days: number): string {
	const d = new Date(Date.now() + days * 24 * 3600_000);
	return d.toISOString().slice(0, 10).replaceAll("-", "");
}

/** An ICS UTC date-time `hours` from now, on a whole minute: `20300101T093000Z`. */
export function utcIn(hours: number): string {
	const at = Math.floor((Date.now() + hours * 3600_000) / 60_000) * 60_000;
	return new Date(at)
		.toISOString()
		.replace(/[-:]/g, "")
		.replace(/\.\d{3}/, "");
}

/** The ISO instant of an ICS UTC date-time. */
export function isoOf(ics: string): string {
	return `${ics.slice(0, 4)}-${ics.slice(4, 6)}-${ics.slice(6, 8)}T${ics.slice(9, 11)}:${ics.slice(11, 13)}:${ics.slice(13, 15)}.000Z`;
}

export function renderFixture(text: string, values: Record<string, string> = {}): string {
	return text
		.replace(/\{\{D([+-]\d+)\}\}/g, (_, n: string) => day(Number(n)))
		.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole)
		.replace(/\r?\n/g, "\r\n");
}

export interface ServedFeed {
	path: string;
	url: string;
}

/** A fresh feed address on the receiver; the secret-looking token makes leaks easy to spot. */
export function newFeed(): ServedFeed {
	const token = `private-${crypto.randomUUID().replaceAll("-", "")}`;
	const path = `/feeds/${token}/basic.ics`;
	return { path, url: `${env.WEBHOOK_RECEIVER_URL}${path}` };
}

export async function serveFeed(feed: ServedFeed, body: string, options: { status?: number; contentType?: string } = {}): Promise<void> {
	const res = await fetch(`${env.WEBHOOK_RECEIVER_URL}/__control/serve?path=${encodeURIComponent(feed.path)}`, {
		method: "POST",
		headers: {
			"x-serve-status": String(options.status ?? 200),
			"x-serve-content-type": options.contentType ?? "text/calendar; charset=utf-8",
		},
		body,
	});
	if (!res.ok) throw new Error(`serve feed: ${res.status}`);
}

export interface Connection {
	id: string;
	name: string;
	ics_url_set: boolean;
	ics_url_masked: string | null;
	auto_join: boolean;
	bot_name: string;
	enabled: boolean;
}

export interface Stamp {
	calendar_id: string;
	calendar_name: string;
	last_sync: string;
	last_error: string | null;
	counts: { created: number; updated: number; cancelled: number };
}

/** A connection as its creation answers it: with the stamp of the sync it ran at once. */
export interface Connected extends Connection {
	sync: Stamp | null;
}

export async function connect(headers: Record<string, string>, feed: ServedFeed, fields: Record<string, unknown> = {}): Promise<Connected> {
	const res = await call("POST", "/user/calendars", { headers, json: { name: "Work", ics_url: feed.url, ...fields } });
	if (res.status !== 201) throw new Error(`POST /user/calendars: ${res.status} ${await res.text()}`);
	return json<Connected>(res);
}

/** The connection as GET /user/calendars lists it: without the stamp of the write. */
export function viewOf({ sync: _, ...view }: Connected): Connection {
	return view;
}

/** The stamp of the first sync, which a new connection runs at once (docs/api.md#calendars). */
export function firstSync(connected: Connected): Stamp {
	if (!connected.sync) throw new Error(`connection ${connected.id} was not synced at once`);
	return connected.sync;
}

export async function sync(headers: Record<string, string>, calendarId: string): Promise<Stamp> {
	const res = await call("POST", `/user/calendars/${calendarId}/sync`, { headers });
	if (res.status !== 200) throw new Error(`POST sync: ${res.status} ${await res.text()}`);
	return json<Stamp>(res);
}

/** A minimal VCALENDAR around some VEVENT texts. */
export function calendar(...events: string[]): string {
	return renderFixture(["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//calendar//EN", ...events, "END:VCALENDAR", ""].join("\n"));
}

export function vevent(fields: Record<string, string>): string {
	return ["BEGIN:VEVENT", "DTSTAMP:20240101T000000Z", ...Object.entries(fields).map(([k, v]) => `${k}:${v}`), "END:VEVENT"].join("\n");
}

/** The UTC instant of a wall-clock time in an IANA zone, computed with Intl (independent of node-ical). */
export function zonedToUtc(yyyymmdd: string, hhmm: string, timeZone: string): string {
	const [y, m, d] = [yyyymmdd.slice(0, 4), yyyymmdd.slice(4, 6), yyyymmdd.slice(6, 8)].map(Number);
	const [hh, mm] = [hhmm.slice(0, 2), hhmm.slice(2, 4)].map(Number);
	const guess = Date.UTC(y ?? 0, (m ?? 1) - 1, d ?? 1, hh ?? 0, mm ?? 0);
	const offset = (at: number) => {
		const parts = new Intl.DateTimeFormat("en-US", {
			timeZone,
			hourCycle: "h23",
			year: "numeric",
			month: "2-digit",
			day: "2-digit",
			hour: "2-digit",
			minute: "2-digit",
		}).formatToParts(new Date(at));
		const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
		return Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute")) - at;
	};
	const first = guess - offset(guess);
	return new Date(guess - offset(first)).toISOString();
}

/** One run of the Worker's scheduled handler at `at`, with some deployment settings changed. */
export async function tick(at: number, overrides: Partial<Env> = {}): Promise<void> {
	const ctx = createExecutionContext();
	await worker.scheduled(createScheduledController({ scheduledTime: at, cron: "* * * * *" }), { ...env, ...overrides } as Env, ctx);
	await waitOnExecutionContext(ctx);
}
