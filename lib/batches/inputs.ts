import { eventIdFromUrl, paramSchemas, type ParamName } from "@/lib/records/params";

/**
 * Which lines of an analyst's list a batch accepts, and why the others are refused. Pure and
 * free of server code: the Batches page runs the same function on the same zod schemas
 * (lib/records/params.ts) for its preview that POST /api/batches runs before it stores anything.
 */
export type BatchOperationView = {
  id: string;
  label: string;
  site: string;
  costCredits: number;
  /** The query parameter one line fills: "url", "event_id", "userid", "urn", or an operation's own. */
  primaryParam: string;
  /** What a line holds, in words: "event page URLs", "user ids". */
  inputNoun: string;
  /** Why a line is refused: "not an event URL". */
  invalidInput: string;
  /** Whether the operation has further pages (followers, publications). */
  paged: boolean;
};

export type InputCheckConfig = {
  eventSiteHosts: readonly string[];
  maxInputs: number;
  /** The check of a one-line parameter that is none of lib/records/params.ts's (an operation's own; the server passes it). */
  acceptsInput?: (value: string) => boolean;
};

const isParamName = (name: string): name is ParamName => Object.hasOwn(paramSchemas, name);

export type AcceptedInput = { input: string; query: string };
export type RejectedInput = { input: string; reason: string };

export type InputCheck = {
  accepted: AcceptedInput[];
  rejected: RejectedInput[];
  /** Lines that repeat an accepted input (the same event counts once, however its URL is written). */
  duplicates: string[];
  /** Accepted inputs past the per-batch limit: the batch cannot be created with them. */
  overLimit: number;
};

/** The value one line gives, and what makes two lines the same input; null when it is refused. */
const identify = (operation: BatchOperationView, value: string, config: InputCheckConfig): string | null => {
  const hosts = config.eventSiteHosts;
  const { primaryParam } = operation;
  if (!isParamName(primaryParam)) return config.acceptsInput?.(value) === true ? value : null;
  if (!paramSchemas[primaryParam].safeParse(value).success) return null;
  if (operation.primaryParam !== "url") return value;
  try {
    return `event:${eventIdFromUrl(value, { hosts })}`;
  } catch {
    return null;
  }
};

/** Checks lines one by one (see checkInputs): add them, then read the result. */
const inputChecker = (operation: BatchOperationView, config: InputCheckConfig) => {
  const accepted: AcceptedInput[] = [];
  const rejected: RejectedInput[] = [];
  const duplicates: string[] = [];
  const seen = new Set<string>();
  return {
    add: (line: string): void => {
      const input = line.trim();
      if (input === "") return;
      const identity = identify(operation, input, config);
      if (identity === null) {
        rejected.push({ input, reason: operation.invalidInput });
        return;
      }
      if (seen.has(identity)) {
        duplicates.push(input);
        return;
      }
      seen.add(identity);
      accepted.push({ input, query: new URLSearchParams({ [operation.primaryParam]: input }).toString() });
    },
    result: (): InputCheck => ({ accepted, rejected, duplicates, overLimit: Math.max(0, accepted.length - config.maxInputs) }),
  };
};

export const checkInputs = (operation: BatchOperationView, lines: readonly string[], config: InputCheckConfig): InputCheck => {
  const checker = inputChecker(operation, config);
  for (const line of lines) checker.add(line);
  return checker.result();
};

/** Lines checked between two turns of the event loop by checkInputsInSlices (about 5 ms of URL parsing). */
export const CHECK_SLICE = 1000;

/**
 * checkInputs for a server: 100,000 event URLs take half a second to check, so they are checked
 * a slice at a time, and requests are served between slices.
 */
export const checkInputsInSlices = async (operation: BatchOperationView, lines: readonly string[], config: InputCheckConfig): Promise<InputCheck> => {
  const checker = inputChecker(operation, config);
  for (let start = 0; start < lines.length; start += CHECK_SLICE) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const line of lines.slice(start, start + CHECK_SLICE)) checker.add(line);
  }
  return checker.result();
};

/** Pages looked up per input: 1, or up to maxPages when the analyst asks for all pages. */
export const pagesPerInput = (operation: BatchOperationView, options: BatchPagesOption, limit: number): number =>
  operation.paged && options.pages === "all" ? Math.max(1, Math.min(options.maxPages ?? limit, limit)) : 1;

export type BatchPagesOption = { pages: "first" | "all"; maxPages?: number };

/** The most a batch can cost: every input, every page it may have, at the operation's price. */
export const maxCostCredits = (operation: BatchOperationView, inputs: number, pages: number): number =>
  inputs * pages * operation.costCredits;
