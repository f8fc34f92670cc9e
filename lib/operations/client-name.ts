import type { OperationDescriptor } from "./descriptor";

/**
 * What an operation is called in the SDKs (a method, camelCase: `eventDetailsId`) and on the
 * command line (a command, kebab-case: `event-details-id`): its descriptor's clientName, else its
 * id. The client generator (scripts/generate-clients.ts) and the API page's SDK snippets read
 * these, so a snippet names the method the generated SDK has. Plain functions: browser-safe.
 */
const wordsOf = (operation: Pick<OperationDescriptor, "id" | "clientName">): string[] =>
  (operation.clientName ?? operation.id)
    .split(/[_\-\s]+|(?<=[a-z0-9])(?=[A-Z])/)
    .filter((word) => word !== "")
    .map((word) => word.toLowerCase());

export const clientMethodName = (operation: Pick<OperationDescriptor, "id" | "clientName">): string =>
  wordsOf(operation)
    .map((word, index) => (index === 0 ? word : `${word.charAt(0).toUpperCase()}${word.slice(1)}`))
    .join("");

export const clientCommandName = (operation: Pick<OperationDescriptor, "id" | "clientName">): string => wordsOf(operation).join("-");

/** Python's name: snake_case ("event_details_id", "publications"). */
export const clientPythonName = (operation: Pick<OperationDescriptor, "id" | "clientName">): string => wordsOf(operation).join("_");

/** An operation's (or the account call's) names in the generated clients, as the API page's snippets write them. */
export type ClientNames = {
  /** The SDK's method: "eventDetailsId", "publications", "account". */
  method: string;
  /** The Python client's: "event_details_id". */
  python: string;
  /** Parameters the clients take as numbers (a page): written as one when the value is a plain whole number. */
  integers: readonly string[];
};

/** The account call's names: not an operation of the registry, a method of both clients. */
export const ACCOUNT_CLIENT_NAMES: ClientNames = { method: "account", python: "account", integers: [] };
