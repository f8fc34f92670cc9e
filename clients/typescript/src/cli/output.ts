import fs from "node:fs";
import type { Writable } from "node:stream";
import { csvLine, type CsvValue } from "../generated/csv.js";
import { valuesAt } from "../paths.js";
import { UsageError } from "./exit-codes.js";

/**
 * Where the command line writes records: stdout or an --out file, honouring backpressure. A
 * reader that goes away (`| head`) ends the work quietly: `closed` turns true and the paging
 * stops, so no further page is bought for nobody.
 */
export class Output {
  closed = false;
  readonly #stream: Writable;
  readonly #ownsStream: boolean;
  /** A write that failed otherwise (a full disk): thrown at the next write or at the end. */
  #failure: Error | null = null;

  private constructor(stream: Writable, ownsStream: boolean) {
    this.#stream = stream;
    this.#ownsStream = ownsStream;
    stream.on("error", (error: NodeJS.ErrnoException) => {
      this.closed = true;
      if (error.code !== "EPIPE") this.#failure = error;
    });
  }

  /** stdout, or a file opened now (before anything is spent): a UsageError when it cannot be created. */
  static open(path: string | undefined, stdout: Writable): Output {
    if (path === undefined || path === "-") return new Output(stdout, false);
    let fd: number;
    try {
      fd = fs.openSync(path, "w");
    } catch (error) {
      throw new UsageError(`cannot create ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    return new Output(fs.createWriteStream("", { fd }), true);
  }

  async write(text: string): Promise<void> {
    if (this.#failure !== null) throw this.#failure;
    if (this.closed || text === "") return;
    if (!this.#stream.write(text)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.#stream.off("drain", done);
          this.#stream.off("close", done);
          resolve();
        };
        this.#stream.once("drain", done);
        this.#stream.once("close", done);
      });
    }
  }

  async end(): Promise<void> {
    if (this.#failure !== null) throw this.#failure;
    if (!this.#ownsStream) return;
    await new Promise<void>((resolve, reject) => {
      this.#stream.once("error", reject);
      this.#stream.end(() => resolve());
    });
  }
}

/** A CSV cell of a record's field, as the server's batch CSV flattens it (lists joined with "; ", objects as JSON). */
const cellOf = (value: unknown): CsvValue => {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return value.map(String).join("; ");
  if (typeof value === "object") return JSON.stringify(value);
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  return String(value);
};

/** The CSV lines of one page: a row per record at `rowsAt`, the columns' cells, defused by the product's writer. */
export const csvRowsOf = (data: unknown, csv: { rowsAt: string; columns: readonly string[] }): string =>
  valuesAt(data, csv.rowsAt)
    .map((record) => csvLine(csv.columns.map((column) => cellOf(typeof record === "object" && record !== null ? (record as Record<string, unknown>)[column] : undefined))))
    .join("");

export const csvHeader = (columns: readonly string[]): string => csvLine(columns);
