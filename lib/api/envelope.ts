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

export const envelopeResponse = (status: number, body: string, headers: Record<string, string>): Response =>
  new Response(body, {
    status,
    headers: { "Content-Type": JSON_CONTENT_TYPE, "Cache-Control": "no-store", ...headers },
  });

/** An error envelope for answers outside the pipeline (unknown path, wrong method). */
export const plainError = (code: ApiErrorCode, message: string): Response => {
  const requestId = crypto.randomUUID();
  return envelopeResponse(code, errorBody(code, message, requestId), { "X-Request-Id": requestId });
};
