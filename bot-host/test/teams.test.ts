import { describePlatform } from "./platform-suite.ts";

describePlatform("teams", { passcode: "Tm9pass", speakerSource: "caption" });
