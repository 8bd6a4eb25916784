import { drizzle } from "drizzle-orm/d1";
import type { Env } from "../env";

/**
 * The drizzle instance of the stores. D1 is reached from store files only: a module under src/
 * whose header says `Drizzle store` (it asks `db(env)`) or `Raw SQL store (why)` (it prepares
 * statements on `env.DB`, for batches, FTS, JSON SQL over tables drizzle does not mirror, or one
 * statement that counts and writes), never both. Routes and Durable Objects call stores; only
 * src/meetings/meeting-data.ts writes `meetings.data` keys. test/unit/structure/database.test.ts
 * checks these rules, and test/worker/db/schema-mirror.test.ts that schema.ts mirrors the migrations.
 */
export const db = (env: Pick<Env, "DB">) => drizzle(env.DB);

/** Whether a D1 write failed on a UNIQUE constraint (drizzle wraps the D1 error, so check its cause too). */
export function isUniqueViolation(err: unknown): boolean {
	return err instanceof Error && /UNIQUE constraint failed/i.test(`${err.message} ${(err.cause as Error | undefined)?.message ?? ""}`);
}
