/**
 * Who is asking, from the socket. With TRUSTED_PROXY_HOPS = 0 (the default) the peer of the TCP
 * connection is the client and X-Forwarded-For is ignored: any client can write it. With N > 0,
 * N proxies the operator runs are in front; each appends the address it received the request
 * from, so the client is the entry N places from the right. Entries further left were written by
 * the client and are never trusted.
 */
const IPV4_MAPPED = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;

/** `::ffff:203.0.113.9` (an IPv4 client on a dual-stack socket) is written `203.0.113.9`. */
export const plainAddress = (address: string): string => IPV4_MAPPED.exec(address)?.[1] ?? address;

export const clientAddress = (
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedProxyHops: number,
): string => {
  const socketPeer = peer === undefined || peer === "" ? "unknown" : plainAddress(peer);
  if (trustedProxyHops === 0) return socketPeer;
  const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? ""))
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length === 0) return socketPeer;
  // Fewer entries than proxies: the request skipped a proxy; the leftmost is the best there is.
  const entry = entries[Math.max(0, entries.length - trustedProxyHops)] ?? socketPeer;
  return plainAddress(entry).slice(0, 64);
};
