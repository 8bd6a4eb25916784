/** Small display formatters shared by the pages (pure, no DOM). */

/** Seconds from the session start as `h:mm:ss` (or `m:ss` under an hour). */
export function clock(seconds: number): string {
	const total = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0));
	const h = Math.floor(total / 3600);
	const m = Math.floor((total % 3600) / 60);
	const s = total % 60;
	const pad = (n: number) => String(n).padStart(2, "0");
	return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** An ISO timestamp in the reader's locale, or a dash for none. */
export function when(iso: string | null | undefined): string {
	if (!iso) return "—";
	const date = new Date(iso);
	return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** A size for people; the API gives null while a file's size is not known yet. */
export function bytes(n: number | null): string {
	if (n === null) return "size unknown";
	if (n < 1024) return `${n} B`;
	if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
	return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
