import pkg from "../package.json";

/**
 * The one version of meetbot-edge, the root package.json's: `/health`, the OpenAPI document's
 * `info.version`, the MCP server, the bot host and `npm start`'s banner all report it
 * (test/unit/structure/one-version.test.ts). It is a release of the reference's 0.12 line, whose
 * public interface the gateway follows, so a client can tell which interface it talks to.
 */
export const SERVICE_VERSION: string = pkg.version;
