import dns from "node:dns/promises";
import http from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyDeliveries } from "@/lib/alerts/alerts";
import { webhookUrlProblem } from "@/lib/alerts/settings";
import { DELIVERY_FAILED, startAlertWorker } from "@/lib/alerts/webhooks";
import { isAllowedAddress, NOT_PUBLIC, outboundPost, PUBLIC_ONLY } from "@/lib/security/outbound";
import { newKey, settleScript } from "@/tests/support/usage";
import { openForSuite, pgliteDatabase } from "@/tests/support/databases";

/**
 * A webhook URL (docs/security.md "Addresses the server calls") must not make the server call
 * inside its own networks. A listener on every interface of this machine (loopback v4 and v6
 * included) must receive nothing — not one TCP connection — from any of the address forms, whether
 * the URL is refused when saved or (written straight into the database, as if a name had started
 * resolving inside after it was saved) when the worker connects.
 */
type Listener = { port: number; connections: number; requests: string[]; close(): Promise<void> };

const listen = async (status = 204, headers: Record<string, string> = {}): Promise<Listener> => {
  const state = { connections: 0, requests: [] as string[] };
  const server = http.createServer((request, response) => {
    state.requests.push(`${request.method ?? ""} ${request.url ?? ""}`);
    request.resume();
    response.writeHead(status, headers).end();
  });
  server.on("connection", () => {
    state.connections += 1;
  });
  // "::" is dual-stack: 127.0.0.1, ::1, ::ffff:127.0.0.1 and this host's other addresses all land here.
  await new Promise<void>((resolve) => server.listen(0, "::", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    get connections() {
      return state.connections;
    },
    requests: state.requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** Every form of "this machine" and of the other non-public ranges, on the listener's port. */
const addressForms = (port: number): string[] => [
  `http://127.0.0.1:${port}/hook`,
  `http://127.1:${port}/hook`,
  `http://2130706433:${port}/hook`,
  `http://0x7f000001:${port}/hook`,
  `http://0177.0.0.1:${port}/hook`,
  `http://127.0.0.1.:${port}/hook`,
  `http://[::1]:${port}/hook`,
  `http://localhost:${port}/hook`,
  `http://LOCALHOST.:${port}/hook`,
  `http://api.localhost:${port}/hook`,
  `http://0.0.0.0:${port}/hook`,
  `http://[::]:${port}/hook`,
  `http://[::ffff:127.0.0.1]:${port}/hook`,
  `http://[::ffff:7f00:1]:${port}/hook`,
  `http://[::127.0.0.1]:${port}/hook`,
  `http://[64:ff9b::7f00:1]:${port}/hook`,
  `https://127.0.0.1:${port}/hook`,
  `https://[::1]:${port}/hook`,
  "https://10.0.0.1/hook",
  "https://172.16.0.1/hook",
  "https://192.168.1.1/hook",
  "https://100.64.0.1/hook",
  "https://169.254.169.254/latest/meta-data",
  "https://[::ffff:169.254.169.254]/",
  "https://[fe80::1]/hook",
  "https://[fd00::1]/hook",
  "https://[::]/hook",
  "https://224.0.0.1/hook",
  "https://255.255.255.255/hook",
];

describe("webhook URLs that point inside are refused when saved", () => {
  it.each(addressForms(8080))("%s", (url) => {
    expect(webhookUrlProblem(url, PUBLIC_ONLY)).toBe(`The webhook URL is ${NOT_PUBLIC}.`);
  });

  it("public https receivers are accepted; plain http to the internet is not", () => {
    expect(webhookUrlProblem("https://hooks.example.com/credits", PUBLIC_ONLY)).toBeNull();
    expect(webhookUrlProblem("https://93.184.215.14/hook", PUBLIC_ONLY)).toBeNull();
    expect(webhookUrlProblem("https://[2606:4700::1111]/hook", PUBLIC_ONLY)).toBeNull();
    expect(webhookUrlProblem("http://hooks.example.com/credits", PUBLIC_ONLY)).toBe("The webhook URL must use https.");
  });

  it("WEBHOOK_ALLOWED_NETWORKS opens exactly the listed networks, and private opens all but 0.0.0.0", () => {
    const internal = { allowPrivate: false, allowedCidrs: ["10.1.0.0/16"] };
    expect(webhookUrlProblem("http://10.1.2.3:8080/hook", internal)).toBeNull();
    expect(webhookUrlProblem("http://10.2.0.1/hook", internal)).toBe(`The webhook URL is ${NOT_PUBLIC}.`);
    expect(webhookUrlProblem("http://127.0.0.1/hook", internal)).toBe(`The webhook URL is ${NOT_PUBLIC}.`);
    const everything = { allowPrivate: true, allowedCidrs: [] };
    expect(webhookUrlProblem("http://localhost:9000/hook", everything)).toBeNull();
    expect(webhookUrlProblem("http://[fd00::1]/hook", everything)).toBeNull();
    expect(isAllowedAddress("0.0.0.0", everything)).toBe(false);
    expect(isAllowedAddress("::", everything)).toBe(false);
  });
});

describe("the delivery worker connects to public addresses only", () => {
  const db = openForSuite(pgliteDatabase());
  let listener: Listener;
  let hostnameForms: string[] = [];

  beforeAll(async () => {
    listener = await listen();
    // This machine's own name resolves to one of its addresses: a DNS answer that points inside.
    const resolved = await dns.lookup(os.hostname(), { all: true }).catch(() => []);
    if (resolved.length > 0 && resolved.every((entry) => !isAllowedAddress(entry.address, PUBLIC_ONLY))) {
      hostnameForms = [`http://${os.hostname()}:${listener.port}/hook`, `https://${os.hostname()}:${listener.port}/hook`];
    }
  }, 120_000);

  afterAll(async () => {
    await listener?.close();
  });

  it("the listener is reachable at all (control: a policy that allows loopback reaches it)", async () => {
    const control = await listen();
    try {
      const status = await outboundPost({ allowPrivate: true, allowedCidrs: [] })(`http://127.0.0.1:${control.port}/control`, {
        headers: {},
        body: "{}",
        timeoutMs: 2000,
      });
      expect(status).toBe(204);
      expect(control.requests).toEqual(["POST /control"]);
    } finally {
      await control.close();
    }
  });

  it("receives nothing from any address form, and the delivery log shows a generic failure only", async () => {
    const urls = [...addressForms(listener.port), ...hostnameForms];
    const keys: string[] = [];
    for (const url of urls) {
      const key = await newKey(db(), null, 10, url);
      // Straight into the database: the worker alone must stop it.
      await db().query("UPDATE api_keys SET alert_threshold_credits = 9, alert_webhook_url = $2 WHERE id = $1", [key.id, url]);
      await settleScript(db(), [{ keyId: key.id, operation: "followers", costCredits: 2, outcome: "found", agoMs: 10, latencyMs: 1 }]);
      keys.push(key.id);
    }
    const worker = startAlertWorker(db(), { pollMs: 60_000, backoffMs: [0], maxAttempts: 2, timeoutMs: 3000, batchSize: 100, policy: PUBLIC_ONLY });
    try {
      const pending = async () => (await db().query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'"))[0]?.n ?? 0;
      for (let round = 0; round < 50 && (round < 2 || (await pending()) > 0); round += 1) {
        await worker.tick();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await worker.stop();
    }
    expect({ connections: listener.connections, requests: listener.requests }).toEqual({ connections: 0, requests: [] });
    for (const [index, keyId] of keys.entries()) {
      const deliveries = await keyDeliveries(db(), keyId);
      expect(deliveries.map((delivery) => ({ status: delivery.status, lastStatus: delivery.lastStatus, lastError: delivery.lastError })), urls[index]).toEqual([
        { status: "failed", lastStatus: null, lastError: DELIVERY_FAILED },
      ]);
    }
  }, 120_000);

  it("does not follow a redirect from an allowed receiver to one that is not", async () => {
    const inside = await listen();
    const redirecting = await listen(302, { Location: `http://127.0.0.1:${inside.port}/inside` });
    try {
      const policy = { allowPrivate: false, allowedCidrs: [] as string[] };
      // The redirecting receiver stands in for a public one: allowed by its exact address and port only via the list.
      const status = await outboundPost({ ...policy, allowedCidrs: ["::1/128"] })(`http://[::1]:${redirecting.port}/hook`, {
        headers: {},
        body: "{}",
        timeoutMs: 2000,
      });
      expect(status).toBe(302);
      expect(redirecting.requests).toEqual(["POST /hook"]);
      expect(inside.connections).toBe(0);
    } finally {
      await inside.close();
      await redirecting.close();
    }
  });
});
