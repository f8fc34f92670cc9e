import type { Channel } from "@/lib/credits/settle";
import { metrics } from "@/lib/metrics/registry";

/**
 * The lookup counters (requests_total, request_duration_seconds, credits_charged_total,
 * refusals_total), moved so that they equal the usage ledger exactly (docs/monitoring.md
 * "Metrics"): a lookup is counted once, with the status, credits and latency its usage record
 * finally has — never for a request that leaves no record. The labels are a channel, an
 * operation id of the registry and a status code: bounded, never a key or an input.
 */

/** What the usage ledger holds for one lookup once it is settled. */
export type RecordedLookup = {
  channel: Channel;
  operation: string;
  status: number;
  creditsCharged: number;
  /** As written with the usage record. */
  latencyMs: number;
};

/** A refusal before any work: the key (401), its credits (402), its access (403), its rate (429). */
export type RefusalReason = "401" | "402" | "403" | "429";

/**
 * A free refusal (402, 403 or 429 that charged nothing) may be folded into an aggregate usage
 * record, which a release cannot turn into 499: its record stands whether or not the client read it.
 */
export const isFreeRefusal = (recorded: RecordedLookup): boolean =>
  recorded.creditsCharged === 0 && (recorded.status === 402 || recorded.status === 403 || recorded.status === 429);

/** What a release leaves in the ledger (release_unanswered): 499, nothing charged, the latency kept. */
export const releasedLookup = (recorded: RecordedLookup): RecordedLookup => ({ ...recorded, status: 499, creditsCharged: 0 });

type Series = { count: () => void; observe: (latencyS: number) => void; charge: (credits: number) => void };

// The labelled children, made once per label set: the hot path does a Map lookup, not label validation.
const seriesByLabels = new Map<string, Series>();
const refusalsByLabels = new Map<string, () => void>();

const seriesOf = (channel: Channel, operation: string, status: number): Series => {
  const key = `${channel} ${operation} ${status}`;
  let series = seriesByLabels.get(key);
  if (series === undefined) {
    const all = metrics();
    const requests = all.requests.labels({ channel, operation, status: String(status) });
    const duration = all.requestDuration.labels({ channel, operation });
    const credits = all.creditsCharged.labels({ channel, operation });
    series = { count: () => requests.inc(), observe: (latencyS) => duration.observe(latencyS), charge: (amount) => credits.inc(amount) };
    seriesByLabels.set(key, series);
  }
  return series;
};

/** One lookup with a usage record, as the record finally stands. */
export const countLookup = (recorded: RecordedLookup): void => {
  const series = seriesOf(recorded.channel, recorded.operation, recorded.status);
  series.count();
  series.observe(recorded.latencyMs / 1000);
  // Counted even when 0, so the series exists for every operation that was looked up.
  series.charge(recorded.creditsCharged);
};

export const countRefusal = (channel: Channel, reason: RefusalReason): void => {
  const key = `${channel} ${reason}`;
  let count = refusalsByLabels.get(key);
  if (count === undefined) {
    const child = metrics().refusals.labels({ channel, reason });
    count = () => child.inc();
    refusalsByLabels.set(key, count);
  }
  count();
};
