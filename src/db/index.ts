import { drizzle } from "drizzle-orm/d1";
import type { Env } from "../env";

/**
 * The one way to reach D1: query-builder access for every store. Raw `env.DB.prepare` stays in the
 * stores that need it (batches, JSON SQL, bulk calendar sync); routes use neither.
 */
export const db = (env: Pick<Env, "DB">) => drizzle(env.DB);

/** Whether a D1 write failed on a UNIQUE constraint (drizzle wraps the D1 error, so check its cause too). */
export function isUniqueViolation(err: unknown): boolean {
	return err instanceof Error && /UNIQUE constraint failed/i.test(`${err.message} ${(err.cause as Error | undefined)?.message ?? ""}`);
}
