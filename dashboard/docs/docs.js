// Starts Swagger UI on /docs (dashboard/docs/index.html) with the gateway's own document. Kept
// out of the page because the CSP allows no inline script. The visitor's key, entered under
// Authorize, goes only in the X-API-Key header of the operations that declare ApiKeyAuth
// (src/gateway/openapi-security.ts); nothing is persisted and nothing leaves this origin.
window.ui = window.SwaggerUIBundle({
	url: "/openapi.json",
	dom_id: "#swagger-ui",
	// The base layout without the standalone preset: its top bar draws its logo with an inline <style>.
	presets: [window.SwaggerUIBundle.presets.apis],
	layout: "BaseLayout",
	deepLinking: true,
	tryItOutEnabled: true,
	// The key lives in this page's memory only, never in localStorage.
	persistAuthorization: false,
	// No call to the online validator (another origin), and no configuration taken from the address.
	validatorUrl: null,
	queryConfigEnabled: false,
	withCredentials: false,
});
