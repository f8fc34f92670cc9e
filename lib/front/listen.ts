import type http from "node:http";

/**
 * Where the process listens for HOST. `localhost` (the default) means both loopback addresses,
 * 127.0.0.1 and ::1: the URL `npm start` prints (`http://localhost:PORT`) then works whichever
 * of them the client's resolver puts first. ::1 is skipped, with a note, on a machine without
 * IPv6; any other HOST (an address, 0.0.0.0, ::, a name) is listened on as given.
 */
export const LOCALHOST = "localhost";

type ListenTarget = { address: string; optional: boolean };

export const listenTargets = (host: string): ListenTarget[] =>
  host.toLowerCase() === LOCALHOST
    ? [
        { address: "127.0.0.1", optional: false },
        { address: "::1", optional: true },
      ]
    : [{ address: host, optional: false }];

/** The errors of an address this machine does not have (no IPv6), as opposed to a port in use. */
const UNAVAILABLE = new Set(["EADDRNOTAVAIL", "EAFNOSUPPORT", "EPROTONOSUPPORT"]);

const listen = (server: http.Server, port: number, address: string): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, address, () => {
      server.off("error", reject);
      resolve();
    });
  });

/** `127.0.0.1:3000`, `[::1]:3000`. */
export const hostPort = (address: string, port: number): string => `${address.includes(":") ? `[${address}]` : address}:${port}`;

export type Listening = { servers: http.Server[]; addresses: string[]; skipped: { address: string; reason: string }[] };

/**
 * One server per address of HOST, each made by `create` (so each carries the same handlers and
 * limits), all on PORT. A port in use on any of them is an error: a client could reach the other
 * program through that address.
 */
export const listenOnHost = async (create: () => http.Server, host: string, port: number): Promise<Listening> => {
  const listening: Listening = { servers: [], addresses: [], skipped: [] };
  for (const target of listenTargets(host)) {
    const server = create();
    try {
      await listen(server, port, target.address);
      listening.servers.push(server);
      listening.addresses.push(hostPort(target.address, port));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "";
      if (target.optional && UNAVAILABLE.has(code)) {
        listening.skipped.push({ address: target.address, reason: code });
        continue;
      }
      for (const started of listening.servers) started.close();
      throw error;
    }
  }
  return listening;
};
