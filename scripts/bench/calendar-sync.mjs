import { createServer } from "node:http";

/**
 * Calendar sync through the running gateway: a generated ICS feed of 2,000 events (1,800 single
 * events and 200 weekly series with exceptions, in several time zones), served by a local HTTP
 * server. Reports the first sync (every event becomes a plan), which POST /user/calendars runs
 * at once, then POST /user/calendars/{id}/sync of the unchanged feed and after a tenth changed.
 *
 * Needs a gateway with OUTBOUND_ALLOW_PRIVATE=true (the feed is on 127.0.0.1) and a rate limit
 * that does not refuse. With `adminToken` it makes its own user, so the 2,000 plans do not
 * crowd the shared bench user; it deletes the calendar (and so its plans) at the end.
 */
export async function benchCalendarSync({ base, key, adminToken, events = 2000, series = 200 }) {
	const apiKey = adminToken ? await ownKey(base, adminToken) : key;
	const feed = await startFeedServer();
	try {
		feed.body = generateFeed({ singles: events - series, series, changed: 0 });
		const headers = { "X-API-Key": apiKey, "content-type": "application/json" };
		const firstStarted = performance.now();
		const created = await call(base, "POST", "/user/calendars", headers, { name: "Bench", ics_url: feed.url, auto_join: true });
		const runs = [{ label: "first sync (all new)", ms: performance.now() - firstStarted, stamp: created.sync }];
		for (const [label, changed] of [
			["unchanged feed", 0],
			["a tenth of events moved", Math.round((events - series) / 10)],
		]) {
			feed.body = generateFeed({ singles: events - series, series, changed });
			const started = performance.now();
			const stamp = await call(base, "POST", `/user/calendars/${created.id}/sync`, headers);
			runs.push({ label, ms: performance.now() - started, stamp });
		}
		const cleanupStarted = performance.now();
		await call(base, "DELETE", `/user/calendars/${created.id}`, headers);
		const cleanupMs = performance.now() - cleanupStarted;

		console.log(
			`\n## Calendar sync (${events} events: ${events - series} single, ${series} weekly series; feed ${(feed.body.length / 1024 / 1024).toFixed(1)} MB)`,
		);
		for (const { label, ms, stamp } of runs) {
			const c = stamp.counts;
			const error = stamp.last_error ? `  last_error: ${stamp.last_error}` : "";
			console.log(
				`${label.padEnd(26)} ${ms.toFixed(0).padStart(6)} ms   created ${c.created}, updated ${c.updated}, cancelled ${c.cancelled}${error}`,
			);
		}
		console.log(`${"delete calendar + plans".padEnd(26)} ${cleanupMs.toFixed(0).padStart(6)} ms`);
		console.log(`first sync: ${runs[0].ms.toFixed(0)} ms (goal: under 2000 ms)`);
		return { firstMs: runs[0].ms, unchangedMs: runs[1].ms, changedMs: runs[2].ms, cleanupMs };
	} finally {
		feed.server.close();
	}
}

async function call(base, method, pathname, headers, body) {
	const res = await fetch(`${base}${pathname}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
	if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${await res.text()}`);
	return res.status === 204 ? null : res.json();
}

async function ownKey(base, adminToken) {
	const admin = { "X-Admin-API-Key": adminToken, "content-type": "application/json" };
	const user = await call(base, "POST", "/admin/users", admin, { email: `bench-calendar-${Date.now()}@example.com` });
	return (await call(base, "POST", `/admin/users/${user.id}/tokens?scopes=bot,tx`, admin)).token;
}

function startFeedServer() {
	const state = { body: "", server: null, url: "" };
	state.server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/calendar; charset=utf-8" }).end(state.body));
	return new Promise((resolve) =>
		state.server.listen(0, "127.0.0.1", () => {
			state.url = `http://127.0.0.1:${state.server.address().port}/calendar/private-bench/basic.ics`;
			resolve(state);
		}),
	);
}

const ZONES = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "America/Los_Angeles", "UTC"];

/** YYYYMMDD of today (UTC) plus `days`. */
const day = (days) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10).replaceAll("-", "");

/** A distinct, valid Meet code per index (base 26), so the same event keeps its link from run to run. */
function meetCode(i) {
	let n = i + 1_000_003;
	let s = "";
	for (let k = 0; k < 10; k++) {
		s = String.fromCharCode(97 + (n % 26)) + s;
		n = Math.floor(n / 26);
	}
	return `${s.slice(0, 3)}-${s.slice(3, 7)}-${s.slice(7, 10)}`;
}

/** Where a calendar would put the link: its own field, the location, the description, or nowhere. */
function linkLines(i) {
	const link = `https://meet.google.com/${meetCode(i)}`;
	switch (i % 4) {
		case 0:
			return [`X-GOOGLE-CONFERENCE:${link}`, `DESCRIPTION:Join with Google Meet: ${link}`];
		case 1:
			return [`LOCATION:${link}`];
		case 2:
			return [`DESCRIPTION:Agenda\\nJoin: ${link}\\nNotes follow.`];
		default:
			return ["LOCATION:Room 3", "DESCRIPTION:No link for this one."];
	}
}

function generateFeed({ singles, series, changed }) {
	const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//meetbot bench//EN", "CALSCALE:GREGORIAN"];
	for (let i = 0; i < singles; i++) {
		const zone = ZONES[i % ZONES.length];
		const moved = i < changed ? 1 : 0;
		const hour = String(8 + (i % 9) + moved).padStart(2, "0");
		lines.push(
			"BEGIN:VEVENT",
			`UID:single-${i}@bench`,
			"DTSTAMP:20250101T000000Z",
			`DTSTART;TZID=${zone}:${day(1 + (i % 60))}T${hour}${String((i % 4) * 15).padStart(2, "0")}00`,
			"DURATION:PT45M",
			`SUMMARY:Meeting ${i}`,
			`ATTENDEE;CN=Person ${i % 50};PARTSTAT=ACCEPTED:mailto:person${i % 50}@example.com`,
			...linkLines(i),
			"END:VEVENT",
		);
	}
	for (let s = 0; s < series; s++) {
		const i = singles + s;
		const zone = ZONES[s % ZONES.length];
		const start = -30 + (s % 7);
		const hour = String(9 + (s % 8)).padStart(2, "0");
		lines.push(
			"BEGIN:VEVENT",
			`UID:series-${s}@bench`,
			"DTSTAMP:20250101T000000Z",
			`DTSTART;TZID=${zone}:${day(start)}T${hour}0000`,
			"DURATION:PT30M",
			"RRULE:FREQ=WEEKLY",
			`EXDATE;TZID=${zone}:${day(start + 35)}T${hour}0000`,
			`SUMMARY:Weekly ${s}`,
			...linkLines(i),
			"END:VEVENT",
			// A moved instance, as calendars write it.
			"BEGIN:VEVENT",
			`UID:series-${s}@bench`,
			"DTSTAMP:20250101T000000Z",
			`RECURRENCE-ID;TZID=${zone}:${day(start + 42)}T${hour}0000`,
			`DTSTART;TZID=${zone}:${day(start + 43)}T${hour}0000`,
			"DURATION:PT30M",
			`SUMMARY:Weekly ${s} (moved)`,
			"END:VEVENT",
		);
	}
	lines.push("END:VCALENDAR", "");
	return lines.join("\r\n");
}
