/**
 * The meeting's statuses, grouped as the status machine (status-machine.ts) moves between them:
 * planned, live (a bot is on its way, in, or leaving), and terminal. Pure and import-free, so
 * the dashboard reads the same lists as the Worker.
 */
export const PLANNED_STATUSES = ["idle", "scheduled"] as const;
export const LIVE_STATUSES = ["requested", "joining", "awaiting_admission", "needs_help", "active", "stopping"] as const;
export const TERMINAL_STATUSES = ["completed", "failed"] as const;
export const MEETING_STATUSES = [...PLANNED_STATUSES, ...LIVE_STATUSES, ...TERMINAL_STATUSES] as const;
