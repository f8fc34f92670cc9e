import { Badge } from "@/components/ui/badge";
import type { ApiKeyView } from "@/lib/query/keys";
import { isExpired } from "./format";

/**
 * Active, Suspended (its maker's role here runs no lookups: refused by the API until a promotion),
 * Expired (still "active" in the database, refused by the API) or Revoked.
 */
export function KeyStatusBadge({ apiKey }: { apiKey: ApiKeyView }) {
  const testId = `key-status-${apiKey.id}`;
  if (apiKey.status === "revoked")
    return (
      <Badge variant="danger" data-testid={testId}>
        Revoked
      </Badge>
    );
  if (apiKey.suspended)
    return (
      <Badge variant="warning" data-testid={testId}>
        Suspended
      </Badge>
    );
  if (isExpired(apiKey.expiresAt))
    return (
      <Badge variant="warning" data-testid={testId}>
        Expired
      </Badge>
    );
  return (
    <Badge variant="success" data-testid={testId}>
      Active
    </Badge>
  );
}
