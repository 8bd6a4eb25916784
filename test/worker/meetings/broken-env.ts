import { runInDurableObject } from "cloudflare:test";
import type { Env } from "../../../src/env";

/**
 * Fault injection inside one Durable Object: its `env` is swapped for one whose bindings are
 * wrapped (a D1 that fails, an account object that cannot be reached), as an outage would
 * look from inside. `restore` puts the real bindings back.
 */
export async function swapEnv(stub: DurableObjectStub, wrap: (env: Env) => Partial<Env>): Promise<() => Promise<void>> {
	let original: Env | undefined;
	await runInDurableObject(stub, (instance: object) => {
		const holder = instance as { env: Env };
		original = holder.env;
		const replaced = wrap(original);
		holder.env = new Proxy(original, {
			get: (target, prop) => (prop in replaced ? replaced[prop as keyof Env] : Reflect.get(target, prop)),
		});
	});
	return () =>
		runInDurableObject(stub, (instance: object) => {
			if (original) (instance as { env: Env }).env = original;
		});
}

/** A failure counter shared by the wrappers below: fails the next `times` matching calls. */
export class Faults {
	count = 0;
	constructor(private left: number) {}

	take(): boolean {
		if (this.left <= 0) return false;
		this.left -= 1;
		this.count += 1;
		return true;
	}
}

/** A D1 whose statements matching `when` throw while `faults` last. */
export function failingD1(db: D1Database, when: RegExp, faults: Faults): D1Database {
	return new Proxy(db, {
		get(target, prop) {
			if (prop === "prepare") return (sql: string) => failingStatement(target.prepare(sql), when.test(sql) ? faults : null);
			const value = Reflect.get(target, prop);
			return typeof value === "function" ? value.bind(target) : value;
		},
	});
}

const EXECUTE = new Set(["run", "all", "first", "raw"]);

function failingStatement(statement: D1PreparedStatement, faults: Faults | null): D1PreparedStatement {
	if (!faults) return statement;
	return new Proxy(statement, {
		get(target, prop) {
			const value = Reflect.get(target, prop);
			if (typeof value !== "function") return value;
			if (prop === "bind") return (...args: unknown[]) => failingStatement(target.bind(...args), faults);
			if (typeof prop === "string" && EXECUTE.has(prop)) {
				return (...args: unknown[]) =>
					faults.take()
						? Promise.reject(new Error("D1_ERROR: injected failure"))
						: (value as (...a: unknown[]) => unknown).apply(target, args);
			}
			return value.bind(target);
		},
	});
}

/** An account namespace whose objects refuse `method` while `faults` last (the object is unreachable). */
export function failingAccounts(ns: Env["ACCOUNT"], method: string, faults: Faults): Env["ACCOUNT"] {
	return failingObjects(ns, method, faults);
}

/** Any object namespace whose objects refuse `method` while `faults` last. */
export function failingObjects<T extends Rpc.DurableObjectBranded | undefined>(
	ns: DurableObjectNamespace<T>,
	method: string,
	faults: Faults,
): DurableObjectNamespace<T> {
	return new Proxy(ns, {
		get(target, prop) {
			const value = Reflect.get(target, prop);
			if (prop !== "get") return typeof value === "function" ? value.bind(target) : value;
			return (id: DurableObjectId) => {
				const stub = target.get(id);
				return new Proxy(stub, {
					get(s, p) {
						const member = Reflect.get(s, p);
						if (p === method)
							return (...args: unknown[]) =>
								faults.take() ? Promise.reject(new Error("object unreachable")) : (member as (...a: unknown[]) => unknown).apply(s, args);
						return typeof member === "function" ? member.bind(s) : member;
					},
				});
			};
		},
	});
}

/** A bucket that is down for deletes (every delete rejects); lists, reads and writes still work. */
export function bucketRefusingDeletes(bucket: R2Bucket): R2Bucket {
	return new Proxy(bucket, {
		get(target, prop) {
			if (prop === "delete") return () => Promise.reject(new Error("injected: the bucket is unavailable"));
			const value = Reflect.get(target, prop);
			return typeof value === "function" ? value.bind(target) : value;
		},
	});
}
