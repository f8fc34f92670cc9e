import ipaddr from "ipaddr.js";

/**
 * What a key may call and from where (docs/api.md "Keys"): its operations (null: every operation, those
 * added later included) and its address allowlist (null: any address) — IPv4 and IPv6 addresses
 * and CIDR ranges. Entries are checked and normalised when a key is saved, compiled once when
 * its credentials are loaded, and matched per request. No HTTP in here: the refusal is a code.
 */
export type AccessRefusal = "operation_not_allowed" | "address_not_allowed";

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

export type KeyAccess = {
  operations: ReadonlySet<string> | null;
  addresses: readonly Range[] | null;
};

export const MAX_ALLOWED_ADDRESSES = 100;

/** One entry as typed (an address or a CIDR range), or a sentence saying what is wrong with it. */
export const normaliseAddressEntry = (raw: string): { ok: true; entry: string } | { ok: false; message: string } => {
  const text = raw.trim();
  const bad = (why: string) => ({ ok: false as const, message: `"${text.slice(0, 64)}" ${why}` });
  if (text === "") return bad("is empty: give an IPv4 or IPv6 address or a CIDR range such as 203.0.113.0/24.");
  const [addressPart = "", prefixPart, extra] = text.split("/");
  if (extra !== undefined) return bad("is not an address or a CIDR range.");
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(addressPart);
  // Zone ids (fe80::1%eth0) name an interface of one machine, not a client.
  const v6 = !v4 && !addressPart.includes("%") && ipaddr.IPv6.isValid(addressPart);
  if (!v4 && !v6) return bad("is not an IPv4 or IPv6 address (write IPv4 as four decimal numbers, e.g. 203.0.113.7).");
  let address: Address = ipaddr.parse(addressPart);
  const maxBits = address.kind() === "ipv4" ? 32 : 128;
  if (prefixPart === undefined) {
    if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress()) address = address.toIPv4Address();
    return { ok: true, entry: address.toString() };
  }
  if (!/^\d{1,3}$/.test(prefixPart) || Number(prefixPart) > maxBits) {
    return bad(`has a bad prefix length: after "/" give 0 to ${maxBits}.`);
  }
  let bits = Number(prefixPart);
  const network =
    address instanceof ipaddr.IPv4
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${bits}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`);
  if (network.toString() !== address.toString()) {
    return bad(`has bits set beyond its /${bits} prefix: did you mean ${network.toString()}/${bits}?`);
  }
  // ::ffff:a.b.c.d/n (n ≥ 96) is the IPv4 range a.b.c.d/(n − 96), written the way clients are.
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() && bits >= 96) {
    address = address.toIPv4Address();
    bits -= 96;
  }
  return { ok: true, entry: `${address.toString()}/${bits}` };
};

/** A whole allowlist: normalised, duplicates dropped, or the first problem found. */
export const normaliseAddressList = (
  entries: readonly string[],
): { ok: true; entries: string[] } | { ok: false; message: string } => {
  if (entries.length > MAX_ALLOWED_ADDRESSES) {
    return { ok: false, message: `A key can carry at most ${MAX_ALLOWED_ADDRESSES} addresses or ranges.` };
  }
  if (entries.length === 0) return { ok: false, message: "Give at least one address or range, or allow every address." };
  const normalised: string[] = [];
  for (const raw of entries) {
    const result = normaliseAddressEntry(raw);
    if (!result.ok) return result;
    if (!normalised.includes(result.entry)) normalised.push(result.entry);
  }
  return { ok: true, entries: normalised };
};

/** Operation ids checked against the registry's, or the first unknown one. */
export const checkOperations = (
  ids: readonly string[],
  known: readonly string[],
): { ok: true; operations: string[] } | { ok: false; message: string } => {
  if (ids.length === 0) return { ok: false, message: "Choose at least one operation, or allow them all." };
  const unknown = ids.find((id) => !known.includes(id));
  if (unknown !== undefined) return { ok: false, message: `"${unknown.slice(0, 64)}" is not an operation (known: ${known.join(", ")}).` };
  return { ok: true, operations: [...new Set(ids)] };
};

const toRange = (entry: string): Range => {
  if (entry.includes("/")) return ipaddr.parseCIDR(entry);
  const address = ipaddr.parse(entry);
  return [address, address.kind() === "ipv4" ? 32 : 128];
};

/** Compiles the stored columns (already normalised when saved) for matching. */
export const compileAccess = (operations: readonly string[] | null, allowedAddresses: readonly string[] | null): KeyAccess => ({
  operations: operations === null ? null : new Set(operations),
  addresses: allowedAddresses === null ? null : allowedAddresses.map(toRange),
});

const parseClient = (clientAddress: string): Address | null => {
  if (!ipaddr.isValid(clientAddress)) return null;
  // ::ffff:a.b.c.d from a dual-stack socket is the IPv4 client a.b.c.d.
  return ipaddr.process(clientAddress);
};

export const addressAllowed = (ranges: readonly Range[], clientAddress: string): boolean => {
  const client = parseClient(clientAddress);
  if (client === null) return false;
  return ranges.some(([network, bits]) => {
    if (client.kind() === network.kind()) return client.match(network, bits);
    // An IPv6 range such as ::/0 or ::ffff:0:0/96 also holds IPv4 clients, in their mapped form.
    return client instanceof ipaddr.IPv4 && network.kind() === "ipv6" && client.toIPv4MappedAddress().match(network, bits);
  });
};

/**
 * Why this key may not make this call, or null when it may. operationId null: a call every key
 * may make whatever its operations (/v1/account, batch control). clientAddress null: a call the
 * server makes on the key's behalf (a batch item), whose client was checked when it was asked for.
 */
export const accessRefusal = (access: KeyAccess, operationId: string | null, clientAddress: string | null): AccessRefusal | null => {
  // The address first: a caller from elsewhere learns nothing of what the key may call.
  if (access.addresses !== null && clientAddress !== null && !addressAllowed(access.addresses, clientAddress)) {
    return "address_not_allowed";
  }
  if (operationId !== null && access.operations !== null && !access.operations.has(operationId)) return "operation_not_allowed";
  return null;
};
