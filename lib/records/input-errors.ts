import { DomainError } from "@/lib/errors";

/**
 * A lookup's bad input, in the contract's words: the parsers below the edges raise these, and
 * each edge says them its own way (the /v1 pipeline as a 400 with this sentence).
 */
export const missing = (name: string) => new DomainError("missing_parameter", `Missing required parameter: ${name}`);
export const invalid = (name: string) => new DomainError("invalid_parameter", `Invalid parameter: ${name}`);
