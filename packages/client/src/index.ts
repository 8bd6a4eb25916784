/** The typed client (docs/client.md). */
export {};
