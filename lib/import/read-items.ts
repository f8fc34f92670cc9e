import fs from "node:fs";
import path from "node:path";
import { JsonSplitter, type SplitItem } from "./json-splitter";
import { chunkDecoderFor, textDecoderFor, type ChunkDecoder } from "./text-encoding";
import { DEFAULT_MAX_RECORD_BYTES, MAX_RECORD_DEPTH, nestsDeeperThan, tooDeepMessage, tooLargeMessage } from "./limits";

/**
 * Reads an import file as a stream of values with their line numbers:
 * - a file whose first character is `[` is a JSON array, split element by element;
 * - a `.json` file is one JSON value (or several, concatenated), pretty-printed or not;
 * - anything else is NDJSON: one value per line, blank lines ignored, a bad line only loses itself.
 * Never more than one value (and one read buffer) in memory; a value longer than
 * `maxRecordBytes` is dropped as it is read and reported as one bad value.
 */
export type FileFormat = "ndjson" | "json";

const SNIFF_BYTES = 4096;
const READ_BUFFER_BYTES = 1 << 20;

const firstCharacter = async (file: string): Promise<string | null> => {
  const handle = await fs.promises.open(file, "r");
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    const head = buffer.subarray(0, bytesRead);
    const text = textDecoderFor(head).decode(head).replace(/^[\s\uFEFF]+/, "");
    return text.length > 0 ? (text[0] ?? null) : null;
  } finally {
    await handle.close();
  }
};

export const detectFormat = async (file: string, name = file): Promise<FileFormat> => {
  if ((await firstCharacter(file)) === "[") return "json";
  return path.extname(name).toLowerCase() === ".json" ? "json" : "ndjson";
};

type ReadOptions = {
  format: FileFormat;
  /** Told the number of bytes read so far, as the file is read (for progress). */
  onBytes?: (bytesRead: number) => void;
  /** A longer value (an NDJSON line, an array element) is one bad value; default DEFAULT_MAX_RECORD_BYTES. */
  maxRecordBytes?: number;
};

/** A value of the file, parsed, with the line it starts on; or why it could not be read. */
type ReadItem = { line: number; value: unknown } | { line: number; error: string };

/**
 * JSON.parse of one value's text. The text is not kept by the item: a 70 MB line must be
 * garbage once parsed, not live on while its records are written.
 */
const parseText = (line: number, text: string): ReadItem => {
  if (nestsDeeperThan(text, MAX_RECORD_DEPTH)) return { line, error: tooDeepMessage };
  try {
    return { line, value: JSON.parse(text) };
  } catch (error) {
    return { line, error: `invalid JSON (${error instanceof Error ? error.message.slice(0, 200) : String(error)})` };
  }
};

const parseSplit = (item: SplitItem): ReadItem => ("error" in item ? item : parseText(item.line, item.text));

/**
 * NDJSON lines out of decoded chunks. Pulling chunk by chunk (not readline, whose async iterator
 * buffers up to 1024 lines ahead of a slow consumer) keeps memory at one line plus one buffer;
 * a line past `maxRecordBytes` is not kept at all, only counted to its end.
 */
async function* ndjsonItems(chunks: AsyncIterable<string>, maxRecordBytes: number): AsyncGenerator<ReadItem> {
  let parts: string[] = [];
  let lineBytes = 0;
  let tooLong = false;
  let line = 0;
  const add = (piece: string) => {
    if (tooLong) return;
    lineBytes += Buffer.byteLength(piece, "utf8");
    if (lineBytes > maxRecordBytes) {
      tooLong = true;
      parts = [];
    } else parts.push(piece);
  };
  const take = (): ReadItem | null => {
    line += 1;
    const overlong = tooLong;
    let text = parts.join("");
    parts = [];
    lineBytes = 0;
    tooLong = false;
    if (overlong) return { line, error: tooLargeMessage(maxRecordBytes) };
    if (line === 1) text = text.replace(/^\uFEFF/, "");
    return text.trim() === "" ? null : parseText(line, text);
  };
  for await (const chunk of chunks) {
    let start = 0;
    for (let newline = chunk.indexOf("\n"); newline >= 0; newline = chunk.indexOf("\n", start)) {
      add(chunk.slice(start, newline));
      start = newline + 1;
      const item = take();
      if (item) yield item;
    }
    if (start < chunk.length) add(chunk.slice(start));
  }
  if (parts.length > 0 || tooLong) {
    const item = take();
    if (item) yield item;
  }
}

async function* decodedChunks(file: string, onBytes?: (bytesRead: number) => void): AsyncGenerator<string> {
  const stream = fs.createReadStream(file, { highWaterMark: READ_BUFFER_BYTES });
  // UTF-8, or UTF-16 when the file starts with its byte-order mark (lib/import/text-encoding.ts).
  let decoder: ChunkDecoder | null = null;
  let bytesRead = 0;
  try {
    for await (const chunk of stream) {
      const buffer: Buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      bytesRead += buffer.length;
      onBytes?.(bytesRead);
      decoder ??= chunkDecoderFor(buffer);
      yield decoder.write(buffer);
    }
    if (decoder) yield decoder.end();
  } finally {
    stream.destroy();
  }
}

export async function* readItems(file: string, options: ReadOptions): AsyncGenerator<ReadItem> {
  const chunks = decodedChunks(file, options.onBytes);
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  if (options.format === "ndjson") {
    yield* ndjsonItems(chunks, maxRecordBytes);
    return;
  }
  const splitter = new JsonSplitter({ maxValueBytes: maxRecordBytes, tooLarge: tooLargeMessage(maxRecordBytes) });
  for await (const chunk of chunks) {
    // Taken out of the array one by one, so that a yielded value's text is not kept alive.
    const texts = splitter.push(chunk);
    while (texts.length > 0) {
      const next = texts.shift();
      if (next) yield parseSplit(next);
    }
  }
  for (const item of splitter.end()) yield parseSplit(item);
}
