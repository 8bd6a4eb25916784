import { errorText } from "../error-text.ts";

/** Rethrows an error with the step it broke, so the reported reason names it. */
export function because(step: string): (err: unknown) => never {
	return (err) => {
		throw new Error(`${step}: ${errorText(err)}`);
	};
}
