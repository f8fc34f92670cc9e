import { useId } from "react";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { cx } from "@/components/ui/class-names";
import type { InstanceView, SnapshotFigures, SnapshotReadinessCheck, SystemSnapshot } from "@/lib/system/view";
import { formatCount, formatDuration, formatGauge, formatMs, formatPerSecond, formatSeenAgo, formatShare } from "./format";

type Figure = { id: string; label: string; value: string; hint?: string };

const figuresOf = (figures: SnapshotFigures, database: SystemSnapshot["database"]): Figure[] => {
  const span = formatDuration(figures.windowS);
  return [
    {
      id: "rps",
      label: "Lookups per second",
      value: formatPerSecond(figures.requestsPerSecond),
      hint: `${formatCount(figures.requestsInWindow)} in the last ${span}`,
    },
    { id: "requests-total", label: "Lookups since start", value: formatCount(figures.requestsTotal) },
    { id: "error-rate", label: "Error rate (5xx)", value: formatShare(figures.errorRate), hint: `not 200: ${formatShare(figures.non200Rate)}` },
    { id: "latency", label: "Latency p50 / p99", value: `${formatMs(figures.p50LatencyMs)} / ${formatMs(figures.p99LatencyMs)}`, hint: `last ${span}` },
    {
      id: "batches",
      label: "Batches queued / running",
      value: `${formatGauge(figures.batchesQueued)} / ${formatGauge(figures.batchesRunning)}`,
      hint: `${formatGauge(figures.batchesRunningHere)} running here`,
    },
    {
      id: "db-queue",
      label: "Database worker queue",
      value: database === "postgres" ? "n/a" : formatGauge(figures.dbWorkerQueueDepth),
      hint: database === "postgres" ? "PostgreSQL: no embedded worker" : "statements waiting or running",
    },
    {
      id: "event-loop",
      label: "Event loop lag",
      value: formatMs(figures.eventLoopLagMs),
      hint: figures.eventLoopLagP99Ms === null ? undefined : `p99 ${formatMs(figures.eventLoopLagP99Ms)}`,
    },
  ];
};

function StatusBadge({ instance }: { instance: InstanceView }) {
  if (instance.stale) return <Badge variant="neutral">Gone</Badge>;
  const readiness = instance.snapshot?.readiness;
  if (readiness === undefined || readiness === null) return <Badge variant="warning">Readiness unknown</Badge>;
  return readiness.ready ? <Badge variant="success">Ready</Badge> : <Badge variant="danger">Not ready</Badge>;
}

/** A check with nothing to check here says what it found ("redis: not configured"), not "passing". */
const checkLabel = (check: SnapshotReadinessCheck): string => {
  if (check.configured === false) return `${check.name}: ${check.detail}`;
  return `${check.name}: ${check.ok ? "passing" : "failing"}`;
};

const checkVariant = (check: SnapshotReadinessCheck) => (check.configured === false ? "neutral" : check.ok ? "success" : "danger");

function Readiness({ snapshot }: { snapshot: SystemSnapshot }) {
  if (snapshot.readiness === null)
    return <p className="text-sm text-warning">Readiness could not be checked: {snapshot.readinessError ?? "no reason given"}</p>;
  const failing = snapshot.readiness.checks.filter((check) => !check.ok);
  return (
    <div className="flex flex-col gap-1.5">
      {failing.length > 0 ? (
        <p className="text-sm font-medium text-danger" data-testid="failing-checks">
          Failing: {failing.map((check) => `${check.name} (${check.detail})`).join(", ")}
        </p>
      ) : null}
      <ul className="flex flex-wrap gap-1.5" aria-label="Readiness checks">
        {snapshot.readiness.checks.map((check) => (
          <li key={check.name}>
            <Badge variant={checkVariant(check)} title={check.detail}>
              {checkLabel(check)}
            </Badge>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** One instance: who it is, whether it takes traffic, and its figures of the last minute. */
export function InstanceCard({ instance }: { instance: InstanceView }) {
  const headingId = useId();
  const { snapshot } = instance;
  const facts = [
    `version ${instance.version}${snapshot?.buildId ? ` (build ${snapshot.buildId})` : ""}`,
    `Node.js ${instance.nodeVersion}`,
    snapshot ? (snapshot.database === "pglite" ? "embedded database" : "PostgreSQL") : null,
    snapshot ? `up ${formatDuration(snapshot.uptimeS)}` : null,
  ].filter((fact) => fact !== null);
  return (
    <Card
      role="article"
      aria-labelledby={headingId}
      data-testid="instance-card"
      data-instance={instance.name}
      data-current={instance.current ? "true" : undefined}
      className={cx("flex flex-col gap-4 p-5 sm:p-6", instance.stale && "border-dashed opacity-80")}
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="flex min-w-0 flex-col gap-1">
          <h2 id={headingId} className="font-mono text-base font-semibold break-all">
            {instance.name}
            <span className="sr-only">, start {instance.startId}</span>
          </h2>
          <p className="text-sm text-muted">{facts.join(" · ")}</p>
        </div>
        <div className="flex flex-wrap items-center gap-1.5">
          {instance.current ? <Badge variant="accent">This instance</Badge> : null}
          <StatusBadge instance={instance} />
        </div>
      </div>
      {snapshot === null ? (
        <p className="text-sm text-muted">This instance reports in a form this version cannot read (another version of Social Lookup).</p>
      ) : (
        <>
          <Readiness snapshot={snapshot} />
          {snapshot.figures === null ? (
            <p className="rounded-lg border border-dashed border-border-strong p-3 text-sm text-muted" data-testid="metrics-off">
              Metrics are off on this instance (<code className="font-mono">METRICS=off</code>): it counts nothing, so there are no figures.
            </p>
          ) : (
            <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 xl:grid-cols-4">
              {figuresOf(snapshot.figures, snapshot.database).map((figure) => (
                <div key={figure.id} className="flex flex-col gap-0.5 rounded-lg bg-surface-muted p-3">
                  <dt className="text-xs font-medium text-muted">{figure.label}</dt>
                  <dd className="flex flex-col gap-0.5">
                    <span className="text-lg font-semibold tracking-tight tabular-nums" data-testid={`figure-${figure.id}`}>
                      {figure.value}
                    </span>
                    {figure.hint ? <span className="text-xs text-muted">{figure.hint}</span> : null}
                  </dd>
                </div>
              ))}
            </dl>
          )}
        </>
      )}
      <p className="text-xs text-muted">
        {instance.stale ? "Gone: last seen " : "Last seen "}
        <time dateTime={instance.seenAt} title={instance.seenAt}>
          {formatSeenAgo(instance.seenAgoS)}
        </time>
        {instance.stale ? " — the figures are its last." : null}
      </p>
    </Card>
  );
}
