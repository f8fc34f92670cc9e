import type { Writable } from "node:stream";

/**
 * A progress line on stderr for long work: pages fetched, batch done/total, credits spent. On a
 * terminal it redraws in place (at most 10 times a second); elsewhere (`--progress` into a log)
 * it prints a line at most once a second. The last state is always printed when the work ends.
 */
export class Progress {
  #lastDrawAt = 0;
  #last = "";
  readonly #interactive: boolean;

  constructor(
    private readonly stream: Writable & { isTTY?: boolean; columns?: number },
    private readonly enabled: boolean,
  ) {
    this.#interactive = stream.isTTY === true;
  }

  /** `fraction` in [0, 1] draws a bar before the text. */
  update(text: string, fraction?: number): void {
    if (!this.enabled) return;
    this.#last = fraction === undefined ? text : `${bar(fraction)} ${text}`;
    const now = Date.now();
    if (now - this.#lastDrawAt < (this.#interactive ? 100 : 1000)) return;
    this.#lastDrawAt = now;
    this.#draw();
  }

  /** The final state, on its own line. */
  finish(text?: string, fraction?: number): void {
    if (!this.enabled) return;
    if (text !== undefined) this.#last = fraction === undefined ? text : `${bar(fraction)} ${text}`;
    this.#draw();
    if (this.#interactive) this.stream.write("\n");
    this.#lastDrawAt = 0;
  }

  #draw(): void {
    if (this.#last === "") return;
    if (this.#interactive) {
      const width = this.stream.columns ?? 100;
      this.stream.write(`\r\x1b[2K${this.#last.slice(0, Math.max(10, width - 1))}`);
    } else this.stream.write(`${this.#last}\n`);
  }
}

const BAR_WIDTH = 20;

export const bar = (fraction: number): string => {
  const clamped = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  const filled = Math.round(clamped * BAR_WIDTH);
  return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${String(Math.floor(clamped * 100)).padStart(3)}%`;
};

export const count = (value: number): string => value.toLocaleString("en-US");
