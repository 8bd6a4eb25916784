import { useCallback, useEffect, useRef, useState } from "preact/hooks";

export interface Resource<T> {
	data: T | null;
	error: unknown;
	loading: boolean;
	/** Loads again (after a change the page made). */
	reload: () => void;
	/** Replaces the data locally (a live update). */
	set: (update: (current: T | null) => T | null) => void;
}

/**
 * Loads `load()` when `key` changes and on `reload()`; a load that a newer one overtook is
 * dropped (its signal is aborted), so a slow answer never overwrites a fresh one. A new `key`
 * clears the data first: a page never acts on the previous thing's record while the next loads.
 */
export function useResource<T>(load: (signal: AbortSignal) => Promise<T>, key: string): Resource<T> {
	const [data, setData] = useState<T | null>(null);
	const [error, setError] = useState<unknown>(null);
	const [loading, setLoading] = useState(true);
	const [round, setRound] = useState(0);
	const loadedKey = useRef(key);
	// `key` names what `load` reads (a new closure each render); `round` is the reload trigger.
	useEffect(() => {
		const abort = new AbortController();
		if (loadedKey.current !== key) {
			loadedKey.current = key;
			setData(null);
			setError(null);
		}
		setLoading(true);
		load(abort.signal).then(
			(value) => {
				if (abort.signal.aborted) return;
				setData(value);
				setError(null);
				setLoading(false);
			},
			(err: unknown) => {
				if (abort.signal.aborted) return;
				setError(err);
				setLoading(false);
			},
		);
		return () => abort.abort();
	}, [key, round]);
	const reload = useCallback(() => setRound((n) => n + 1), []);
	return { data, error, loading, reload, set: setData };
}
