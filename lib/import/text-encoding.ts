import fs from "node:fs";
import { StringDecoder } from "node:string_decoder";

/**
 * How an import file's bytes become text. UTF-8 is the format; a file that starts with a UTF-16
 * byte-order mark (what Windows tools write as "Unicode") is read as UTF-16, the mark dropped, as
 * is a UTF-8 one. Anything else must be valid UTF-8: a Latin-1 or Windows-1252 file is refused
 * with a sentence that says what to do, not read as JSON full of replacement characters.
 */
export type TextEncoding = "utf-8" | "utf-16le" | "utf-16be";

export const NOT_UTF8_MESSAGE =
  "The file is not UTF-8 text (Latin-1 or Windows-1252?): save it as UTF-8 (or UTF-16 with a byte-order mark) and upload it again.";

export const encodingOf = (head: Uint8Array): TextEncoding => {
  if (head[0] === 0xff && head[1] === 0xfe) return "utf-16le";
  if (head[0] === 0xfe && head[1] === 0xff) return "utf-16be";
  return "utf-8";
};

/** A streaming decoder for the encoding its first bytes name; it drops the byte-order mark. */
export const textDecoderFor = (head: Uint8Array, fatal = false): TextDecoder => new TextDecoder(encodingOf(head), { fatal });

export type ChunkDecoder = { write: (bytes: Buffer) => string; end: () => string };

/**
 * The import's decoder for a file whose first bytes are `head`. UTF-8 and UTF-16LE go through
 * StringDecoder, whose ASCII text stays in one-byte strings (a 70 MB line would double as
 * TextDecoder's two-byte strings); a byte-order mark is left for the readers to skip, as before.
 */
export const chunkDecoderFor = (head: Uint8Array): ChunkDecoder => {
  const encoding = encodingOf(head);
  if (encoding === "utf-16be") {
    const decoder = textDecoderFor(head);
    return { write: (bytes) => decoder.decode(bytes, { stream: true }), end: () => decoder.decode() };
  }
  const decoder = new StringDecoder(encoding === "utf-16le" ? "utf16le" : "utf8");
  return { write: (bytes) => decoder.write(bytes), end: () => decoder.end() };
};

/** Whether the whole file decodes without a bad byte, read chunk by chunk (never all in memory). */
export const isReadableText = async (file: string): Promise<boolean> => {
  let decoder: TextDecoder | null = null;
  try {
    for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
      const bytes: Buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      decoder ??= textDecoderFor(bytes, true);
      decoder.decode(bytes, { stream: true });
    }
    decoder?.decode();
    return true;
  } catch (error) {
    if (error instanceof TypeError) return false;
    throw error;
  }
};
