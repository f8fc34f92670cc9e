import type { z } from "zod";
import { invalid, missing } from "./input-errors";

/**
 * Reading one query parameter by its schema, as docs/decisions.md "Parameters" fixes it: absent or
 * empty is missing; given twice or not matching is invalid (both the contract's 400).
 */
export type QueryValues = Record<string, string | undefined>;

type ParamRule = { name: string; schema: z.ZodType<string>; required: boolean };

/** The value of one parameter, or undefined when absent/empty; throws the contract's 400. */
export const readParam = (query: URLSearchParams, param: ParamRule): string | undefined => {
  const values = query.getAll(param.name);
  if (values.length > 1) throw invalid(param.name);
  const value = values[0];
  if (value === undefined || value === "") {
    if (param.required) throw missing(param.name);
    return undefined;
  }
  if (!param.schema.safeParse(value).success) throw invalid(param.name);
  return value;
};

/** Every declared parameter, checked in declaration order. */
export const readParams = (query: URLSearchParams, params: readonly ParamRule[]): QueryValues =>
  Object.fromEntries(params.map((param) => [param.name, readParam(query, param)]));
