/**
 * The client's address for sign-in limits and the audit log. The process front (lib/front)
 * owns the socket: it computes the address (the socket peer, or the entry TRUSTED_PROXY_HOPS
 * proxies appended to X-Forwarded-For) and writes it into this header on every request it hands
 * to Next, replacing whatever a client sent under that name. Nothing here parses
 * X-Forwarded-For: a client can write that header, and only the front knows the peer.
 */
export const CLIENT_ADDRESS_HEADER = "x-social-lookup-client-address";

const MAX_LENGTH = 64;

export const clientIp = (headers: Record<string, unknown> | Headers | undefined): string => {
  if (!headers) return "local";
  const value = headers instanceof Headers ? headers.get(CLIENT_ADDRESS_HEADER) : headers[CLIENT_ADDRESS_HEADER];
  // Absent only when the app runs without the front (never in production): one shared bucket.
  return typeof value === "string" && value !== "" ? value.slice(0, MAX_LENGTH) : "local";
};
