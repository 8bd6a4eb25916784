/**
 * The traps a sandbox page can set for the bot (scenario `traps`), by platform: each is
 * something a real page does that has broken bots (/work/shared/reviews/platform-fidelity.md §5).
 * Each platform's page reads its own from `document.documentElement.dataset.traps`.
 */
export const MEET_TRAPS = [] as const;
export const ZOOM_TRAPS = [] as const;
export const TEAMS_TRAPS = [] as const;

export const SANDBOX_TRAPS: readonly string[] = [...MEET_TRAPS, ...ZOOM_TRAPS, ...TEAMS_TRAPS];
