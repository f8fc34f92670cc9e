import http from "node:http";

/**
 * How exact the per-key limit is (docs/decisions.md "Bulk, agents and keys": every sliding second):
 * requests at a fixed rate spread round-robin over several instances, and the most admissions found
 * in any sliding 1,000 ms. Used by `npm run bench:scale` (printed) and the scale suite's rate-limit
 * test (asserted).
 */

/** The most timestamps (ms) in any half-open 1,000 ms window. */
export const busiestSecond = (timesMs: readonly number[]): number => {
  const sorted = [...timesMs].sort((a, b) => a - b);
  let busiest = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last += 1) {
    while ((sorted[last] ?? 0) - (sorted[first] ?? 0) >= 1000) first += 1;
    busiest = Math.max(busiest, last - first + 1);
  }
  return busiest;
};

/** Sends `ratePerS` GETs a second for `seconds` on a fixed schedule; returns each status and send time. */
export const probeAtFixedRate = async (options: {
  urls: readonly string[];
  token: string;
  ratePerS: number;
  seconds: number;
}): Promise<Array<{ sentAtMs: number; status: number }>> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const total = Math.round(options.ratePerS * options.seconds);
  const startedAt = performance.now();
  const one = (url: URL): Promise<{ sentAtMs: number; status: number }> =>
    new Promise((resolve) => {
      const sentAtMs = performance.now() - startedAt;
      const request = http.get(
        { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, agent, headers: { Authorization: `Bearer ${options.token}` } },
        (response) => {
          response.resume();
          response.on("end", () => resolve({ sentAtMs, status: response.statusCode ?? 0 }));
        },
      );
      request.on("error", () => resolve({ sentAtMs, status: 0 }));
    });
  const pending: Promise<{ sentAtMs: number; status: number }>[] = [];
  for (let index = 0; index < total; index += 1) {
    const wait = startedAt + (index * 1000) / options.ratePerS - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(one(new URL(options.urls[index % options.urls.length] ?? "")));
  }
  const answers = await Promise.all(pending);
  agent.destroy();
  return answers;
};
