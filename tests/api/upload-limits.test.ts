import { describe, expect, inject, it } from "vitest";
import { signInWithPassword } from "@/lib/cli/console-session";
import { groupRssKiB } from "@/lib/cli/processes";
import { generatedBody } from "@/tests/support/streams";
import { serverPid, type ApiTarget } from "./harness";

/**
 * Uploads (docs/security.md "Input") against the production server: an admin uploads 100 MB through
 * POST /api/admin/import — a valid record, a record nested 5,000 deep, one 100 MB line, a valid
 * record — while the server's memory (RSS of its whole process group) is sampled. Each bad record
 * is one reported error with its line, and the server stays within +300 MB of its size before.
 * strict=1, so the shared store of the other suites is left as it is (the lib tests show the
 * valid records around bad ones being written: lib/import/import-limits.test.ts).
 */
const targets = inject("apiTargets");

const MB = 1024 * 1024;
const RSS_BOUND_BYTES = 300 * MB;
const UPLOAD_LINE_BYTES = 100 * MB;

const must = <T>(value: T | null | undefined, what: string): T => {
  if (value === null || value === undefined) throw new Error(`missing ${what}`);
  return value;
};

/** Signs in as the browser does; the session's Cookie header. */
const signIn = async (target: ApiTarget, email: string, password: string): Promise<string> =>
  must((await signInWithPassword(target.baseUrl, { email, password })).session, "session cookie");


const nested = (depth: number): string => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const validEvent = (id: string): string =>
  JSON.stringify({
    stats: "ok",
    event_id: id,
    start_date: "2026-05-01",
    start_time: "19:00:00",
    end_date: "2026-05-01",
    end_time: "21:00:00",
    local_formatted_time: "Friday, May 1, 2026 at 7:00 PM – 9:00 PM CEST",
    title: "Upload limits",
    location_text: "Somewhere",
    lat: 52.5,
    lng: 13.4,
    details: "",
    source: "test",
    tags: [],
    has_tickets: null,
    hosts: [],
    related_events: [],
    responded_count: 0,
    cover_image_url: "https://images.demo.test/cover.svg",
    location_place: null,
    location_from_details: { name: "Somewhere", contextual_name: "Berlin, Germany" },
    is_canceled: false,
  });

/** The body, made as it is sent: the test never holds the 100 MB line either. */
const uploadBody = (): ReadableStream<Uint8Array> => {
  const deep = validEvent("9300000002").replace('"location_place":null', `"location_place":{"x":${nested(5000)}}`);
  const head = `${validEvent("9300000001")}\n${deep}\n{"event_id":"9300000003","title":"`;
  return generatedBody(head, UPLOAD_LINE_BYTES, `"}\n${validEvent("9300000004")}\n`);
};

/** RSS of every process in the server's process group (the server may run Next in a child). */
const groupRssBytes = (groupId: number): number => groupRssKiB(groupId) * 1024;

describe.each(targets)("$kind server: POST /api/admin/import", (target: ApiTarget) => {
  it(`takes a 100 MB upload with a deep record and a 100 MB line: two reported errors, RSS within +${RSS_BOUND_BYTES / MB} MB`, async () => {
    const groupId = must(serverPid(target), "server pid");
    const cookie = await signIn(target, must(target.env.ADMIN_EMAIL, "ADMIN_EMAIL"), must(target.env.ADMIN_PASSWORD, "ADMIN_PASSWORD"));
    const idle = groupRssBytes(groupId);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, groupRssBytes(groupId))), 50);
    try {
      const response = await fetch(`${target.baseUrl}/api/admin/import?name=big.ndjson&strict=1`, {
        method: "POST",
        headers: { Cookie: cookie, "Content-Type": "application/x-ndjson", Accept: "application/json" },
        body: uploadBody(),
        duplex: "half",
      } as RequestInit & { duplex: "half" });
      const text = await response.text();
      peak = Math.max(peak, groupRssBytes(groupId));
      console.log(`${target.kind}: server RSS idle ${Math.round(idle / MB)} MB, peak during the 100 MB upload ${Math.round(peak / MB)} MB (+${Math.round((peak - idle) / MB)} MB)`);
      expect(response.status, text.slice(0, 500)).toBe(200);
      const report = JSON.parse(text) as { imported: number; skipped: number; aborted: boolean; errors: { line: number; message: string }[] };
      expect(report.errors).toEqual([
        { line: 2, message: expect.stringMatching(/^record nested deeper than \d+ levels$/) },
        { line: 3, message: expect.stringMatching(/^record too large: more than [\d,]+ bytes \(IMPORT_MAX_RECORD_BYTES\)$/) },
      ]);
      expect(report).toMatchObject({ skipped: 2, aborted: true });
    } finally {
      clearInterval(sampler);
    }
    expect(peak - idle).toBeLessThan(RSS_BOUND_BYTES);
  }, 300_000);

  it("reads a UTF-16 file by its byte-order mark, and refuses a Latin-1 file with a sentence saying to save it as UTF-8", async () => {
    const cookie = await signIn(target, must(target.env.ADMIN_EMAIL, "ADMIN_EMAIL"), must(target.env.ADMIN_PASSWORD, "ADMIN_PASSWORD"));
    const upload = (name: string, body: Buffer) =>
      fetch(`${target.baseUrl}/api/admin/import?name=${name}&strict=1`, {
        method: "POST",
        headers: { Cookie: cookie, "Content-Type": "application/octet-stream", Accept: "application/json" },
        body: new Blob([new Uint8Array(body)]),
      });
    // strict=1 and a bad last line: nothing is written, and the report shows how line 1 was read.
    const ndjson = `${validEvent("9300000101").replace('"Upload limits"', '"Görlitzer Park"')}\n{"event_id":\n`;
    const utf16le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(ndjson, "utf16le")]);
    const utf16be = Buffer.from(utf16le.map((_, index) => utf16le[index % 2 === 0 ? index + 1 : index - 1] ?? 0));
    for (const [name, body] of [["utf16le.ndjson", utf16le], ["utf16be.ndjson", utf16be]] as const) {
      const response = await upload(name, body);
      const text = await response.text();
      expect(response.status, text).toBe(200);
      const report = JSON.parse(text) as { errors: { line: number }[]; aborted: boolean };
      expect(report.errors.map((error) => error.line), `${name}: only the broken line 2 is an error`).toEqual([2]);
      expect(report.aborted).toBe(true);
    }

    const latin1 = await upload("latin1.ndjson", Buffer.from(ndjson, "latin1"));
    const refused = (await latin1.json()) as { error: { code: string; message: string } };
    expect(latin1.status).toBe(400);
    expect(refused.error.code).toBe("not_utf8");
    expect(refused.error.message).toMatch(/save it as UTF-8/);
  });
});
