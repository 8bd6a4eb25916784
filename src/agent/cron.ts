/**
 * Routine schedules: five-field cron expressions in UTC (docs/agent.md#routines).
 * SKELETON: the signatures are the contract between the routine routes and the schedule.
 */
export type CronCheck = { ok: true; expression: string } | { ok: false; field: string; detail: string };
