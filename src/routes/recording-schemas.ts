import { MediaFile as MediaFileShape, Recording as RecordingShape } from "../shapes/recording";

/** One stored file of a recording (recordings/recording-store.ts mediaFileView), as src/shapes/recording.ts declares it. */
export const MediaFile = MediaFileShape.extend({}).openapi("MediaFile");

/** A recording and its files (recordings/recording-store.ts recordingView). */
export const Recording = RecordingShape.extend({ media_files: MediaFile.array() }).openapi("Recording");
