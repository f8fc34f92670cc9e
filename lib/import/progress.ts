import type { ImportProgress } from "./importer";

/**
 * The import's progress line on stderr: redrawn in place on a terminal (a few times a second),
 * one plain line every PLAIN_EVERY_MS when stderr is a file or pipe. Quiet for the first second,
 * so small imports print only their summary.
 */
const TTY_EVERY_MS = 200;
const PLAIN_EVERY_MS = 10_000;
const QUIET_FIRST_MS = 1000;

const number = (value: number) => value.toLocaleString("en-US");
const megabytes = (bytes: number) => (bytes / 1_048_576).toFixed(1);

const formatProgress = (progress: ImportProgress, elapsedMs: number): string => {
  const seconds = Math.max(elapsedMs / 1000, 0.001);
  const percent = progress.bytesTotal > 0 ? Math.floor((progress.bytesRead / progress.bytesTotal) * 100) : 100;
  const rate = Math.round((progress.records + progress.skipped) / seconds);
  return (
    `${progress.phase === "checking" ? "checking" : "importing"} ${progress.file} ${percent}% ` +
    `(${megabytes(progress.bytesRead)}/${megabytes(progress.bytesTotal)} MB) ` +
    `${number(progress.records)} records, ${number(progress.skipped)} bad · ${number(rate)} records/s · ` +
    `${megabytes(progress.bytesRead / seconds)} MB/s`
  );
};

/** stderr, or the stream an operator command's progress goes to over the server's socket. */
export type ProgressStream = { write(text: string): unknown; isTTY?: boolean };

export const createProgressLine = (stream: ProgressStream, now: () => number = Date.now) => {
  let startedAt: number | null = null;
  let lastDrawn = 0;
  let drawn = false;
  const interactive = stream.isTTY === true;
  return {
    update(progress: ImportProgress) {
      const at = now();
      startedAt ??= at;
      if (at - startedAt < QUIET_FIRST_MS) return;
      if (at - lastDrawn < (interactive ? TTY_EVERY_MS : PLAIN_EVERY_MS)) return;
      lastDrawn = at;
      const line = formatProgress(progress, at - startedAt);
      if (interactive) {
        stream.write(`\r\x1b[2K${line}`);
        drawn = true;
      } else stream.write(`${line}\n`);
    },
    /** Ends a redrawn line so that later output starts on its own line. */
    clear() {
      if (interactive && drawn) stream.write("\r\x1b[2K");
      drawn = false;
    },
  };
};
