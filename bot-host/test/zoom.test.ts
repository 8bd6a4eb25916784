import { describePlatform } from "./platform-suite.ts";

// The web client's captions carry no name: speakers come from the active-speaker frame.
describePlatform("zoom", { passcode: "s3cret", speakerSource: "active_speaker" });
