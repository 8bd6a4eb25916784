import { expect } from "vitest";

/** The rows of the Markdown table between `<!-- name:start -->` and `<!-- name:end -->`, header and rule dropped. */
export function tableRows(doc: string, name: string): string[][] {
	const start = doc.indexOf(`<!-- ${name}:start -->`);
	const end = doc.indexOf(`<!-- ${name}:end -->`);
	expect(start, `${name} table markers`).toBeGreaterThanOrEqual(0);
	expect(end, `${name} table markers`).toBeGreaterThan(start);
	return doc
		.slice(start, end)
		.split("\n")
		.filter((line) => line.startsWith("|"))
		.slice(2)
		.map((line) =>
			line
				.slice(1, -1)
				.split("|")
				.map((cell) => cell.trim()),
		);
}
