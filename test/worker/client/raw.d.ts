/** The client's committed OpenAPI snapshot and generated types, imported as text (Vite's `?raw`). */
declare module "*.json?raw" {
	const text: string;
	export default text;
}
declare module "*.ts?raw" {
	const text: string;
	export default text;
}
