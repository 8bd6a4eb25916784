/**
 * The traps a sandbox page can set for the bot (scenario `traps`), by platform: each is
 * something a real page does that has broken bots (/work/shared/reviews/platform-fidelity.md §5).
 * Each platform's page reads its own from `document.documentElement.dataset.traps`.
 */
export const MEET_TRAPS = [] as const;
/** Zoom (pages/zoom.ts); each from the review's section 5 or a peer's note, named where the page sets it. */
export const ZOOM_TRAPS = [
	/** `.preview-meeting-info` over Join: pointer clicks land on it (V join.ts). */
	"join_covered",
	/** Join stays disabled for 3 s after the name is typed (V waits up to 8 s). */
	"join_enabled_late",
	/** The "Use microphone and camera" prompt over the form at load, twice (V join.ts). */
	"permission_before_name",
	/** The footer and the View widget hide after 1.5 s without the pointer moving (V admission.ts). */
	"footer_autohide",
	/** One subtitle span reused for every caption line. */
	"caption_span_reused",
	/** The caption-language modal (Save) and the transcription notice (OK) after Show Captions (A). */
	"caption_modals",
	/** The host turned captions off: no Captions item in the More menu (A). */
	"captions_disabled",
	/** The meeting's end sends the page to app.zoom.us/signin instead of the modal (V removal.ts). */
	"end_redirects_signin",
	/** The meeting's end sends the page back to /wc/<id>/join (V removal.ts). */
	"end_redirects_join",
	/** The footer's audio button says aria-label="audio" all meeting (older V live note); its text says the state. */
	"audio_label",
] as const;
export const TEAMS_TRAPS = [] as const;

export const SANDBOX_TRAPS: readonly string[] = [...MEET_TRAPS, ...ZOOM_TRAPS, ...TEAMS_TRAPS];
