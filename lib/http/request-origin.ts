import { headers } from "next/headers";

/**
 * The origin clients reach this deployment at, for copy-paste examples (the API reference's base
 * URL, the home page's quick start): the request's (forwarded) host and protocol. Falls back to
 * the default dev address outside a request or for a host that is not a plain host name.
 */
export const requestOrigin = async (): Promise<string> => {
  const requestHeaders = await headers();
  const host = requestHeaders.get("x-forwarded-host") ?? requestHeaders.get("host");
  if (!host || !/^[A-Za-z0-9.:[\]-]+$/.test(host)) return "http://localhost:3000";
  const forwardedProto = requestHeaders.get("x-forwarded-proto");
  const protocol = forwardedProto === "https" || forwardedProto === "http" ? forwardedProto : "http";
  return `${protocol}://${host}`;
};
