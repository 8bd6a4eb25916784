/** The one version of meetbot-edge, the root package.json's. */
export function serviceVersion(): string;
