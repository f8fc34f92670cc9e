import { promisify } from "node:util";
import zlib from "node:zlib";

/**
 * Compression of /v1 answers (decisions.md "Transport"): bodies over 1 KB, when the client's
 * Accept-Encoding admits gzip or br. Small bodies are sent as they are: the headers would cost
 * more than the bytes saved. Work runs on libuv's thread pool, off the event loop that runs the
 * pipeline.
 */
export const MIN_COMPRESSED_BYTES = 1024;

export type Encoding = "br" | "gzip";

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/**
 * Levels picked by `npm run bench` on a followers page (9.3 KB): gzip 6 gives 1.5 KB; brotli at
 * quality 4 is smaller still for less CPU than its default 11, which costs milliseconds a page.
 */
const GZIP_OPTIONS: zlib.ZlibOptions = { level: 6 };
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
