/**
 * The names of the fields the API's validation errors point at, in people's words: a refusal's
 * `loc` (`["body", "meeting_url"]`) is shown as "Meeting link", never as `body.meeting_url`
 * (docs/api.md#errors). A field without its own words here is spelled out ("bot_name" as
 * "Bot name"); words.test.ts checks every field of the API's requests reads as words. Pure.
 */

/** Fields whose code, spelled out, would not say what a person typed. */
export const FIELD_WORDS: Record<string, string> = {
	meeting_url: "Meeting link",
	native_meeting_id: "Meeting code",
	native_id: "Meeting code",
	meeting_id: "Meeting",
	meeting: "Meeting",
	platform: "Platform",
	passcode: "Passcode",
	bot_name: "Bot name",
	webhook_url: "Webhook URL",
	webhook_secret: "Webhook secret",
	webhook_events: "Webhook events",
	ics_url: "ICS address",
	auto_join: "Join meetings by itself",
	auto_join_rules: "Auto-join rules",
	organizer_only: "Only meetings I organise",
	min_attendees: "At least this many attendees",
	return_to: "Return address",
	base_url: "Base URL",
	url: "URL",
	uri: "URI",
	api_key: "API key",
	key_id: "Key",
	token_id: "Token",
	q: "Search words",
	ttl_seconds: "Lifetime (seconds)",
	expires_in: "Expires in",
	expires_in_days: "Expires in (days)",
	expires_at: "Expires at",
	max_bot_time: "Longest time in a meeting",
	max_time_left_alone: "Time alone before leaving",
	max_wait_for_admission: "Longest wait in the lobby",
	max_wait_for_host: "Longest wait for the host",
	no_one_joined_timeout: "Wait for someone to join",
	max_concurrent_bots: "Bots at once",
	recording_enabled: "Recording",
	transcribe_enabled: "Transcription",
	voice_agent_enabled: "Voice agent",
	cron: "Schedule",
	repo: "Repository",
	session_uid: "Session",
	n: "Number",
};

const SOURCES = new Set(["body", "query", "path", "header"]);

/** A field's own name in words: its table entry, else its code with spaces and a capital. */
export function fieldName(field: string): string {
	const known = FIELD_WORDS[field];
	if (known) return known;
	const spelled = field.replace(/[_.-]+/g, " ").trim();
	return spelled ? spelled[0]?.toUpperCase() + spelled.slice(1) : "Value";
}

/**
 * A refusal's `loc` in words: where it came from (body, query) goes, list positions count from
 * one, nested fields read outside in ("Recording config, video"). Empty for the request as a whole.
 */
export function fieldWords(loc: readonly (string | number)[]): string {
	const parts = loc.filter((part, i) => !(i === 0 && typeof part === "string" && SOURCES.has(part)));
	const named: string[] = [];
	for (const part of parts) {
		if (typeof part === "number" || /^\d+$/.test(part)) {
			const at = named.length - 1;
			if (at >= 0) named[at] = `${named[at]} #${Number(part) + 1}`;
			continue;
		}
		named.push(named.length === 0 ? fieldName(part) : fieldName(part).toLowerCase());
	}
	return named.join(", ");
}

/** "body.meeting_url: not a link" as "Meeting link: not a link": a detail the server wrote as one string. */
export function detailWords(detail: string): string {
	const match = /^(body|query|path|header)\.([\w.-]+): /.exec(detail);
	if (!match?.[1] || !match[2]) return detail;
	return `${fieldWords([match[1], ...match[2].split(".")])}: ${detail.slice(match[0].length)}`;
}
