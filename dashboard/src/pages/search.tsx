import type { QueryOf } from "@meetbot/client";
import { useEffect, useId, useState } from "preact/hooks";
import { PLATFORM_CHOICES } from "../../../src/platforms/index.ts";
import { abortable } from "../api";
import { meetingTitle, platformWords } from "../meeting-words";
import { navigate, type Route } from "../route";
import type { Meeting, SearchHit } from "../types";
import { Button, clock, ErrorBanner, SelectField, TextField, useResource, when } from "../ui";

/** Search across every transcript the key may read (GET /transcripts/search, docs/dashboard.md#search). */

const PAGE_SIZE = 20;
/** The API's own bound on `q`. */
const QUERY_MAX = 200;

const PLATFORMS: [string, string][] = [["", "Any platform"], ...PLATFORM_CHOICES.map(([code, name]): [string, string] => [code, name])];

/** The route for a search: `#/search?q=…` and its filters, empty ones left out. */
function searchPath(params: Record<string, string>): string {
	const query = new URLSearchParams(Object.entries(params).filter(([, value]) => value !== ""));
	return `/search?${query}`;
}

/** The search box in the shell's header: it opens the results page for what was typed. */
export function SearchBox(props: { route: Route }) {
	const id = useId();
	const current = props.route.parts[0] === "search" ? (props.route.query.get("q") ?? "") : "";
	const [q, setQ] = useState(current);
	useEffect(() => setQ(current), [current]);
	return (
		<search>
			<form
				class="site-search"
				aria-label="Search transcripts"
				onSubmit={(event) => {
					event.preventDefault();
					if (q.trim()) navigate(searchPath({ q: q.trim() }));
				}}
			>
				<label for={id}>Search transcripts</label>
				<input id={id} type="search" name="q" value={q} maxLength={QUERY_MAX} onInput={(e) => setQ(e.currentTarget.value)} />
				<Button type="submit">Go</Button>
			</form>
		</search>
	);
}

/** A date field's day as an instant: the start (or the end) of that day where the reader is. */
function dayBound(day: string, end: boolean): string {
	if (!day) return "";
	const at = new Date(`${day}T${end ? "23:59:59.999" : "00:00:00"}`);
	return Number.isNaN(at.getTime()) ? "" : at.toISOString();
}

/** `#/search?q=…&platform=&speaker=&from_day=&to_day=&offset=`: the hits, best first, a page at a time. */
export function SearchPage(props: { route: Route }) {
	const query = props.route.query;
	const params = {
		q: query.get("q") ?? "",
		platform: query.get("platform") ?? "",
		speaker: query.get("speaker") ?? "",
		from_day: query.get("from_day") ?? "",
		to_day: query.get("to_day") ?? "",
	};
	const offset = Math.max(0, Number.parseInt(query.get("offset") ?? "0", 10) || 0);
	const from = dayBound(params.from_day, false);
	const to = dayBound(params.to_day, true);
	const search: QueryOf<"/transcripts/search", "get"> = {
		q: params.q,
		limit: PAGE_SIZE,
		offset,
		// A platform typed into the address is the API's to judge (its 422 is shown).
		...(params.platform ? { platform: params.platform as QueryOf<"/transcripts/search", "get">["platform"] } : {}),
		...(params.speaker ? { speaker: params.speaker } : {}),
		...(from ? { from } : {}),
		...(to ? { to } : {}),
	};
	const results = useResource(
		(signal) => (params.q.trim() ? abortable(signal).transcripts.search(search) : Promise.resolve(null)),
		JSON.stringify(search),
	);

	const [draft, setDraft] = useState(params);
	useEffect(() => setDraft(params), [query.toString()]);
	const set = (name: keyof typeof params) => (value: string) => setDraft((d) => ({ ...d, [name]: value }));

	function page(delta: number) {
		navigate(searchPath({ ...params, offset: String(Math.max(0, offset + delta * PAGE_SIZE)) }));
	}

	const found = results.data;
	return (
		<>
			<h1>Search transcripts</h1>
			<form
				class="form-row"
				aria-label="Search and filters"
				onSubmit={(event) => {
					event.preventDefault();
					navigate(searchPath({ ...draft, q: draft.q.trim() }));
				}}
			>
				<TextField
					label="Words"
					name="q"
					value={draft.q}
					onValue={set("q")}
					maxLength={QUERY_MAX}
					hint='Every word must appear; "a phrase" in quotes; budg* for a prefix'
				/>
				<SelectField label="Platform" name="platform" value={draft.platform} onValue={set("platform")} options={PLATFORMS} />
				<TextField label="Speaker" name="speaker" value={draft.speaker} onValue={set("speaker")} maxLength={200} />
				<TextField label="From" name="from_day" type="date" value={draft.from_day} onValue={set("from_day")} />
				<TextField label="To" name="to_day" type="date" value={draft.to_day} onValue={set("to_day")} />
				<Button type="submit" variant="primary">
					Search
				</Button>
			</form>
			<ErrorBanner error={results.error} />
			{!params.q.trim() ? <p>Type words to find in what was said in your meetings and your workspaces' meetings.</p> : null}
			{results.loading && params.q.trim() && !found ? <p class="muted">Searching…</p> : null}
			{found ? (
				<section aria-labelledby="search-results-heading">
					<h2 id="search-results-heading">
						{found.total === 0 ? "No matches" : `${found.total} ${found.total === 1 ? "match" : "matches"}`}
					</h2>
					{found.hits.length > 0 ? (
						<ol class="search-hits" start={offset + 1}>
							{found.hits.map((hit) => (
								<SearchHitItem key={`${hit.meeting_id}/${hit.segment_id}`} hit={hit} />
							))}
						</ol>
					) : null}
					{found.total > PAGE_SIZE ? (
						<nav class="actions" aria-label="Pages of matches">
							<Button onClick={() => page(-1)} disabled={offset === 0}>
								Previous page
							</Button>
							<span class="muted">
								{found.hits.length > 0 ? `Matches ${offset + 1}–${offset + found.hits.length} of ${found.total}` : ""}
							</span>
							<Button onClick={() => page(1)} disabled={offset + PAGE_SIZE >= found.total}>
								Next page
							</Button>
						</nav>
					) : null}
				</section>
			) : null}
		</>
	);
}

function SearchHitItem(props: { hit: SearchHit }) {
	const { hit } = props;
	const meeting: Pick<Meeting, "id" | "platform" | "native_meeting_id" | "data"> = {
		id: hit.meeting_id,
		platform: hit.platform,
		native_meeting_id: hit.native_meeting_id,
		data: hit.title ? { title: hit.title } : {},
	};
	return (
		<li class="search-hit" data-meeting-id={hit.meeting_id}>
			<p class="search-hit-meeting">
				<a href={`#/meetings/${hit.meeting_id}`}>{meetingTitle(meeting)}</a>{" "}
				<span class="muted">
					{/* An untitled meeting's name already says its platform. */}
					{hit.title ? `${platformWords(hit.platform)} · ` : ""}
					{when(hit.absolute_start_time ?? hit.meeting_start_time)} · at {clock(hit.start)}
				</span>
			</p>
			<p class="search-hit-line">
				<span class="speaker">{hit.speaker}</span>: <Highlighted snippet={hit.snippet} highlights={hit.highlights} />
			</p>
		</li>
	);
}

/**
 * The snippet with its matches in <mark>: the API's offsets cut the plain text (code points), and
 * every piece is a text child, so whatever a meeting said is never parsed as markup.
 */
export function Highlighted(props: { snippet: string; highlights: [number, number][] }) {
	const chars = Array.from(props.snippet);
	const pieces = [];
	let at = 0;
	for (const [start, end] of props.highlights) {
		if (start < at || end <= start || end > chars.length) continue;
		if (start > at) pieces.push(chars.slice(at, start).join(""));
		pieces.push(<mark key={start}>{chars.slice(start, end).join("")}</mark>);
		at = end;
	}
	if (at < chars.length) pieces.push(chars.slice(at).join(""));
	return <span class="snippet">{pieces}</span>;
}
