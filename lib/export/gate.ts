import { env } from "@/lib/env";
import { metrics } from "@/lib/metrics/registry";

/**
 * Long downloads (usage CSV exports, batch results) read the database page by page for as long
 * as the client keeps reading; at most `EXPORT_CONCURRENCY` of them stream at once per process,
 * so they cannot fill the database's queue. A download that finds every slot taken waits its turn
 * for a few seconds (first come, first served), then is answered 429 with Retry-After.
 */
export type Release = () => void;

export interface ExportGate {
  /** A slot, or null when none frees within the wait (or too many already wait). */
  enter(): Promise<Release | null>;
  readonly running: number;
}

export const EXPORT_WAIT_MS = 5000;
export const EXPORT_RETRY_AFTER_S = 10;

export const createExportGate = (limit: number, waitMs: number, maxWaiting = limit * 4): ExportGate => {
  // Moved by steps, not set: tests make gates of their own beside the process's one.
  const { exportGateInUse, exportGateWaiting, exportGateRefusals } = metrics();
  let running = 0;
  const waiting: Array<(release: Release | null) => void> = [];
  const refuse = (): null => {
    exportGateRefusals.inc();
    return null;
  };
  const slot = (): Release => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = waiting.shift();
      if (next) {
        exportGateWaiting.dec();
        next(slot());
      } else {
        running -= 1;
        exportGateInUse.dec();
      }
    };
  };
  return {
    get running() {
      return running;
    },
    enter: () => {
      if (running < limit) {
        running += 1;
        exportGateInUse.inc();
        return Promise.resolve(slot());
      }
      if (waiting.length >= maxWaiting) return Promise.resolve(refuse());
      return new Promise((resolve) => {
        const turn = (release: Release | null) => {
          clearTimeout(timer);
          resolve(release);
        };
        const timer = setTimeout(() => {
          const index = waiting.indexOf(turn);
          if (index >= 0) {
            waiting.splice(index, 1);
            exportGateWaiting.dec();
          }
          resolve(refuse());
        }, waitMs);
        waiting.push(turn);
        exportGateWaiting.inc();
      });
    },
  };
};

const holder = globalThis as typeof globalThis & { __socialLookupExportGate?: ExportGate };

/** The process-wide gate (on globalThis: Next bundles each route separately). */
export const exportGate = (): ExportGate => {
  holder.__socialLookupExportGate ??= createExportGate(env().EXPORT_CONCURRENCY, EXPORT_WAIT_MS);
  return holder.__socialLookupExportGate;
};

/** A body that gives its slot back once it ends, fails or is cancelled (the client went away). */
export const releasingStream = (body: ReadableStream<Uint8Array>, release: Release): ReadableStream<Uint8Array> => {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await reader.read();
          if (next.done) {
            release();
            controller.close();
          } else controller.enqueue(next.value);
        } catch (error) {
          release();
          controller.error(error);
        }
      },
      async cancel(reason) {
        release();
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
};

const busy = (): Response =>
  Response.json(
    {
      error: {
        code: "exports_busy",
        message: `Too many downloads are running on this server right now. Try again in ${EXPORT_RETRY_AFTER_S} seconds.`,
      },
    },
    { status: 429, headers: { "Retry-After": String(EXPORT_RETRY_AFTER_S), "Cache-Control": "no-store" } },
  );

/**
 * Answers a download inside an export slot: the slot is held until its body is read to the end
 * (or cancelled, or the request aborted); no slot in time → 429 with Retry-After.
 */
export const withExportSlot = async (signal: AbortSignal, open: () => Promise<Response>): Promise<Response> => {
  const release = await exportGate().enter();
  if (release === null) return busy();
  try {
    const response = await open();
    if (response.body === null) {
      release();
      return response;
    }
    signal.addEventListener("abort", release, { once: true });
    return new Response(releasingStream(response.body, release), { status: response.status, headers: response.headers });
  } catch (error) {
    release();
    throw error;
  }
};
