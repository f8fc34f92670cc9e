import { isLookupError, type LookupErrorCode } from "./lookup-error";

/** What the console says about a failed lookup (docs/decisions.md "Console"), and where to fix it. */
export type LookupSubject = "event" | "user" | "profile";

const fieldLabels: Record<string, string> = {
  url: "event URL",
  event_id: "event id",
  userid: "user id",
  node_id: "node id",
  cursor: "cursor",
  urn: "profile URN",
  page: "page number",
};

const fieldRules: Record<string, string> = {
  url: "use the address of an event page, https://<event site>/events/<id>/.",
  event_id: "use digits only (up to 20).",
  userid: "use digits only (up to 20).",
  node_id: "use the node id from an earlier page.",
  cursor: "use the cursor from the previous page.",
  urn: "use a profile URN such as urn:li:member:3000000001.",
  page: "use a whole number from 1.",
};

/** "event URL" for "url": the words a 400 highlights. */
export const fieldLabel = (field: string): string => fieldLabels[field] ?? field;

/** The human sentence for a failed lookup. */
export const lookupErrorText = (error: unknown, what: LookupSubject): string => {
  if (!isLookupError(error)) return "Something went wrong. Try again.";
  switch (error.code) {
    case "out_of_credits":
      // The console's sentence names the limit that ran out and who can lift it (lib/console-api/spending-limits.ts).
      return error.limitedBy !== undefined ? error.message : "This key is out of credits.";
    case "forbidden":
      // The console API's own sentence (a viewer's role, …); /v1's is about the key's restrictions.
      return error.message.startsWith("apiKey ")
        ? "The console key may not make this call (its operations or addresses are restricted). Choose another on the Keys page."
        : error.message || "You may not do this here.";
    case "rate_limited":
      return `Too many requests — retry in ${error.retryAfterS ?? 1} s.`;
    case "not_found":
      return `No such ${what}.`;
    case "bad_request": {
      if (!error.field) return `Check the input: ${error.message}`;
      const rule = error.fieldProblem === "missing" ? "it is required." : (fieldRules[error.field] ?? "this value is not accepted.");
      return `Check the ${fieldLabel(error.field)}: ${rule}`;
    }
    case "no_console_key":
      return "Choose a console key on the Keys page first.";
    case "no_provider_key":
      return "Add your provider key first: lookups go to the provider with your own key.";
    case "key_rejected":
      return "The console key was rejected (revoked or expired). Choose another on the Keys page.";
    case "signed_out":
      return "Your session has ended. Sign in again.";
    case "network_error":
      return "Could not reach the server. Check your connection and try again.";
    case "server_error":
      return "Something went wrong on our side — nothing was charged. Try again.";
  }
};

const keysPage = { href: "/keys", label: "Go to Keys" };

/** Where the user can fix each kind of failure, when it is not this form. */
const errorActions: Partial<Record<LookupErrorCode, { href: string; label: string }>> = {
  out_of_credits: keysPage,
  no_console_key: keysPage,
  key_rejected: keysPage,
  no_provider_key: { href: "/account/provider-key", label: "Add provider key" },
  signed_out: { href: "/signin", label: "Sign in" },
};

const membersPage = { href: "/workspace/members", label: "See members" };

/** Where the user can fix the problem, if anywhere but this form. */
export const lookupErrorAction = (error: unknown): { href: string; label: string } | null => {
  if (!isLookupError(error)) return null;
  // A member's budget or the team's pool is not the key's: the Members page shows both, and who may raise them.
  if (error.code === "out_of_credits" && (error.limitedBy === "budget" || error.limitedBy === "pool")) return membersPage;
  if (error.code === "forbidden") return error.message.startsWith("apiKey ") ? keysPage : null;
  return errorActions[error.code] ?? null;
};
