/**
 * The attribute names our spans carry: OpenTelemetry's semantic conventions (1.45, the stable
 * ones; a unit test holds them equal to @opentelemetry/semantic-conventions) and our own under
 * `social_lookup.`. Plain strings, so code that sets attributes loads nothing of OpenTelemetry.
 */
export const ATTR = {
  serviceName: "service.name",
  serviceVersion: "service.version",
  serviceInstanceId: "service.instance.id",
  httpRequestMethod: "http.request.method",
  httpResponseStatusCode: "http.response.status_code",
  httpRoute: "http.route",
  httpRequestResendCount: "http.request.resend_count",
  urlPath: "url.path",
  serverAddress: "server.address",
  errorType: "error.type",
  dbSystemName: "db.system.name",
  /** Deprecated by the conventions for db.system.name, still the key many trace views group by. */
  dbSystem: "db.system",
  dbOperationName: "db.operation.name",
  dbQueryText: "db.query.text",
  requestId: "social_lookup.request_id",
  operation: "social_lookup.operation",
  channel: "social_lookup.channel",
  keyId: "social_lookup.key_id",
  /** query, long_read or transaction (lib/db/observe.ts). */
  dbKind: "social_lookup.db.kind",
  /** pglite (embedded) or postgres: both speak PostgreSQL. */
  dbEngine: "social_lookup.db.engine",
  /** What the provider's answer meant: data, not_found, key_rejected, rate_limited, retryable, bad_answer. */
  upstreamOutcome: "social_lookup.upstream.outcome",
} as const;

export const DB_SYSTEM_POSTGRESQL = "postgresql";
