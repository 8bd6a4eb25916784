/**
 * The traps a sandbox page can set for the bot (scenario `traps`), by platform: each is
 * something a real page does that has broken bots (/work/shared/reviews/platform-fidelity.md §5).
 * Each platform's page reads its own from `document.documentElement.dataset.traps`.
 */
/** Google Meet (pages/google-meet.ts; docs/sandbox.md#google-meet says what each does and whose notes it follows). */
export const MEET_TRAPS = [
	"rotated_caption_classes",
	"effects_phantom_span",
	"lobby_host_brings_you_in",
	"lobby_waiting_room",
	"lobby_waiting_for_host",
	"join_enabled_late",
	"overlay_over_join",
	"slow_device_toggles",
	"auto_hiding_toolbar",
	"gemini_consent",
	"chat_pin_button",
	"junk_tiles",
	"self_view_named_you",
	"denied_as_left",
	"not_found_expired",
	"not_found_code_doesnt_work",
	"problem_connecting",
] as const;
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
/** Teams (pages/teams.ts; docs/sandbox.md#teams-web says what each does and whose note it follows). */
export const TEAMS_TRAPS = [
	"launcher_variant",
	"join_overlay",
	"join_enabled_late",
	"av_prompt_late",
	"couldnt_connect",
	"org_sign_in",
	"organizer_view",
	"unnamed_stream",
	"idle_chat",
	"encryption_error",
] as const;

export const SANDBOX_TRAPS: readonly string[] = [...MEET_TRAPS, ...ZOOM_TRAPS, ...TEAMS_TRAPS];
