import { describe, expect, it } from "vitest";
import { metrics } from "@/lib/metrics/registry";
import { valueOf } from "@/tests/support/metric-deltas";
import { createExportGate, releasingStream } from "./gate";

describe("the export gate", () => {
  it("lets `limit` in at once, gives a freed slot to the first waiter, and refuses one that waited too long", async () => {
    const gate = createExportGate(2, 50);
    const first = await gate.enter();
    const second = await gate.enter();
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(gate.running).toBe(2);

    const waiting = [gate.enter(), gate.enter()];
    first?.();
    first?.(); // a second release of the same slot changes nothing
    const turn = await waiting[0];
    expect(turn).not.toBeNull();
    expect(await waiting[1]).toBeNull();
    expect(gate.running).toBe(2);

    second?.();
    turn?.();
    expect(gate.running).toBe(0);
  });

  it("refuses at once when too many already wait", async () => {
    const gate = createExportGate(1, 10_000, 1);
    const held = await gate.enter();
    const waiter = gate.enter();
    expect(await gate.enter()).toBeNull();
    held?.();
    const next = await waiter;
    expect(next).not.toBeNull();
    next?.();
    expect(gate.running).toBe(0);
  });

  it("releases the slot when the body ends and when it is cancelled", async () => {
    let released = 0;
    const body = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new Uint8Array([1, 2]));
          controller.enqueue(new Uint8Array([3]));
          controller.close();
        },
      });
    const read = await new Response(releasingStream(body(), () => (released += 1))).arrayBuffer();
    expect([...new Uint8Array(read)]).toEqual([1, 2, 3]);
    expect(released).toBe(1);

    const reader = releasingStream(body(), () => (released += 1)).getReader();
    await reader.read();
    expect(released).toBe(1);
    await reader.cancel();
    expect(released).toBe(2);
  });
});

describe("the export gate's metrics", () => {
  it("shows slots in use and downloads waiting, and counts each refusal", async () => {
    const { exportGateInUse, exportGateWaiting, exportGateRefusals } = metrics();
    const base = { inUse: await valueOf(exportGateInUse), waiting: await valueOf(exportGateWaiting), refusals: await valueOf(exportGateRefusals) };
    const now = async () => ({
      inUse: (await valueOf(exportGateInUse)) - base.inUse,
      waiting: (await valueOf(exportGateWaiting)) - base.waiting,
      refusals: (await valueOf(exportGateRefusals)) - base.refusals,
    });
    const gate = createExportGate(1, 30, 1);
    const held = await gate.enter();
    expect(await now()).toEqual({ inUse: 1, waiting: 0, refusals: 0 });
    const waiter = gate.enter();
    expect(await now()).toEqual({ inUse: 1, waiting: 1, refusals: 0 });
    // Too many waiting: refused at once.
    expect(await gate.enter()).toBeNull();
    expect(await now()).toEqual({ inUse: 1, waiting: 1, refusals: 1 });
    // No slot frees within the wait: refused too.
    expect(await waiter).toBeNull();
    expect(await now()).toEqual({ inUse: 1, waiting: 0, refusals: 2 });
    const next = gate.enter();
    held?.();
    const turn = await next;
    expect(await now()).toEqual({ inUse: 1, waiting: 0, refusals: 2 });
    turn?.();
    expect(await now()).toEqual({ inUse: 0, waiting: 0, refusals: 2 });
  });
});
