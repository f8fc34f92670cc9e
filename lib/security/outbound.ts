import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupAddress } from "node:dns";
import ipaddr from "ipaddr.js";

/**
 * Requests the server makes to addresses its users chose (alert webhooks). By default only
 * public unicast addresses are reached: loopback, private, link-local, unique-local, CGNAT,
 * multicast, unspecified, reserved, IPv4-mapped/compatible IPv6 and NAT64 forms are refused.
 * The check runs on the address actually connected to (after DNS, inside the socket's lookup),
 * so a name that resolves inside — or starts to, between save and delivery — is refused too.
 * Redirects are never followed. A self-hoster widens the policy with WEBHOOK_ALLOWED_NETWORKS.
 */
export type OutboundPolicy = {
  /** Any non-public address except the unspecified one (0.0.0.0, ::). */
  allowPrivate: boolean;
  /** Networks allowed in addition to public addresses, e.g. 10.1.0.0/16. */
  allowedCidrs: readonly string[];
};

export const PUBLIC_ONLY: OutboundPolicy = { allowPrivate: false, allowedCidrs: [] };

export const NOT_PUBLIC = "refused: not a public address";

export class OutboundRefusedError extends Error {
  readonly code = "EOUTBOUNDREFUSED";
  constructor() {
    super(NOT_PUBLIC);
  }
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;

// Deprecated IPv4-compatible IPv6 (::a.b.c.d): ipaddr.js calls it unicast.
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");

const inCidr = (address: Address, cidr: string): boolean => {
  try {
    const [network, bits] = ipaddr.parseCIDR(cidr);
    const candidate = address.kind() === "ipv6" && network.kind() === "ipv4" && (address as ipaddr.IPv6).isIPv4MappedAddress()
      ? (address as ipaddr.IPv6).toIPv4Address()
      : address;
    return candidate.kind() === network.kind() && candidate.match([network, bits]);
  } catch {
    return false;
  }
};

/** Whether a connection to this IP address (as text) is allowed. Anything unparsable is not. */
export const isAllowedAddress = (text: string, policy: OutboundPolicy): boolean => {
  let address: Address;
  try {
    address = ipaddr.parse(text);
  } catch {
    return false;
  }
  if (policy.allowedCidrs.some((cidr) => inCidr(address, cidr))) return true;
  const range = address.range();
  if (range === "unspecified") return false;
  if (policy.allowPrivate) return true;
  if (range !== "unicast") return false;
  return !(address.kind() === "ipv6" && address.match(IPV4_COMPATIBLE));
};

const bareHost = (url: URL): string => url.hostname.replace(/^\[|\]$/g, "").replace(/\.+$/, "").toLowerCase();

/**
 * What can be known before connecting: "refused" for an address literal (any form the URL
 * parser accepts: 127.1, 2130706433, 0x7f000001, [::ffff:…]) or a localhost name the policy
 * refuses; "allowed" for one it allows; "name" when only DNS at connect time can tell.
 */
/**
 * Whether plain http may go to this URL's host: an address (or localhost) inside the internal
 * networks the operator allowed, or any name when every private network is allowed. A name with
 * only some networks allowed may resolve to a public address: it must use https.
 */
export const plainHttpAllowed = (url: URL, policy: OutboundPolicy): boolean => {
  const host = bareHost(url);
  const literal = host === "localhost" || host.endsWith(".localhost") ? "127.0.0.1" : ipaddr.isValid(host) ? host : null;
  if (literal === null) return policy.allowPrivate;
  const address = ipaddr.parse(literal);
  if (policy.allowedCidrs.some((cidr) => inCidr(address, cidr))) return true;
  return policy.allowPrivate && address.range() !== "unicast";
};

export const hostVerdict = (url: URL, policy: OutboundPolicy): "allowed" | "refused" | "name" => {
  const host = bareHost(url);
  if (host === "localhost" || host.endsWith(".localhost")) return isAllowedAddress("127.0.0.1", policy) ? "allowed" : "refused";
  if (ipaddr.isValid(host)) return isAllowedAddress(host, policy) ? "allowed" : "refused";
  return "name";
};

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup, refusing the whole answer when any address in it is not allowed. */
const guardedLookup =
  (policy: OutboundPolicy) =>
  (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const first = addresses[0];
      if (!first || addresses.some((entry) => !isAllowedAddress(entry.address, policy))) {
        return callback(new OutboundRefusedError(), []);
      }
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };

export type OutboundPost = (url: string, init: { headers: Record<string, string>; body: string; timeoutMs: number }) => Promise<number>;

/**
 * POSTs a body and answers the response status; the body of the answer is discarded and a 3xx
 * is just a status. Throws OutboundRefusedError for a refused address, another error otherwise.
 */
export const outboundPost =
  (policy: OutboundPolicy): OutboundPost =>
  (target, init) =>
    new Promise<number>((resolve, reject) => {
      let url: URL;
      try {
        url = new URL(target);
      } catch (error) {
        reject(error);
        return;
      }
      if (url.protocol !== "https:" && url.protocol !== "http:") {
        reject(new Error(`unsupported protocol ${url.protocol}`));
        return;
      }
      // net.connect skips the lookup for an address literal: it is checked here instead.
      if (hostVerdict(url, policy) === "refused") {
        reject(new OutboundRefusedError());
        return;
      }
      const transport = url.protocol === "https:" ? https : http;
      const request = transport.request(
        url,
        {
          method: "POST",
          headers: { ...init.headers, "Content-Length": String(Buffer.byteLength(init.body)) },
          agent: false,
          lookup: guardedLookup(policy),
          signal: AbortSignal.timeout(init.timeoutMs),
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on("error", reject);
      request.end(init.body);
    });
