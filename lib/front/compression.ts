import { promisify } from "node:util";
import zlib from "node:zlib";

/**
 * Compression of /v1 answers (docs/decisions.md "Transport"): bodies over 1 KB, when the client's
 * Accept-Encoding admits gzip or br. Small bodies are sent as they are: the headers would cost
 * more than the bytes saved. Work runs on libuv's thread pool, off the event loop that runs the
 * pipeline.
 */
export const MIN_COMPRESSED_BYTES = 1024;

export type Encoding = "br" | "gzip";

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/**
 * Measured on a followers page (8,749 B) on this 2-core machine: gzip level 4 gives 1,541 B in
 * ~240 µs, level 6 1,464 B in ~410 µs; brotli quality 4 1,483 B in ~310 µs (quality 5: 1,396 B in
 * ~575 µs; the default 11 costs milliseconds). Brotli does not pay for itself on pages this small,
 * so server.ts offers gzip only, at the level that costs least CPU for nearly the same bytes.
 */
const GZIP_OPTIONS: zlib.ZlibOptions = { level: 4 };
const BROTLI_OPTIONS: zlib.BrotliOptions = {
  params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT },
};

type Preference = { encoding: string; quality: number };

const parseAcceptEncoding = (header: string): Preference[] =>
  header.split(",").flatMap((part) => {
    const [name, ...params] = part.trim().split(";");
    const encoding = name?.trim().toLowerCase() ?? "";
    if (encoding === "") return [];
    const q = params.map((param) => /^\s*q=(.*)$/i.exec(param)?.[1]?.trim()).find((value) => value !== undefined);
    // A q-value that is no number makes the element worthless, not preferred.
    const quality = q === undefined ? 1 : /^[0-9.]+$/.test(q) ? Number(q) : 0;
    return [{ encoding, quality: Number.isFinite(quality) ? quality : 0 }];
  });

/**
 * The encoding to answer with, or null for identity. `enabled` lists the encodings the server
 * offers, best first; the client's q-values decide among them, ties going to the server's order.
 */
export const negotiateEncoding = (acceptEncoding: string | undefined, enabled: readonly Encoding[]): Encoding | null => {
  if (acceptEncoding === undefined || acceptEncoding.trim() === "") return null;
  const preferences = parseAcceptEncoding(acceptEncoding);
  const qualityOf = (encoding: Encoding): number => {
    const exact = preferences.find((preference) => preference.encoding === encoding);
    if (exact) return exact.quality;
    return preferences.find((preference) => preference.encoding === "*")?.quality ?? 0;
  };
  let best: { encoding: Encoding; quality: number } | null = null;
  for (const encoding of enabled) {
    const quality = qualityOf(encoding);
    if (quality > 0 && (best === null || quality > best.quality)) best = { encoding, quality };
  }
  return best?.encoding ?? null;
};

export const compress = (body: Buffer, encoding: Encoding): Promise<Buffer> =>
  encoding === "br" ? brotli(body, BROTLI_OPTIONS) : gzip(body, GZIP_OPTIONS);
