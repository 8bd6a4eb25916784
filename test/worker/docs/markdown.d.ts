/** Documentation is imported as text (Vite's `?raw`), so the worker tests can read it. */
declare module "*.md?raw" {
	const text: string;
	export default text;
}

/** wrangler.toml as text, for the settings drift test. */
declare module "*.toml?raw" {
	const text: string;
	export default text;
}
