import type { ApiErrorCode } from "./errors";

/**
 * The one envelope of every /v1 answer: {code, message, data, requestId}, in that order.
 * Success bodies splice the connector's pre-serialised data in.
 */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

export const successBody = (dataJson: string, requestId: string): string =>
  `{"code":0,"message":"success","data":${dataJson},"requestId":"${requestId}"}`;

export const errorBody = (code: ApiErrorCode, message: string, requestId: string): string =>
  JSON.stringify({ code, message, data: null, requestId });
