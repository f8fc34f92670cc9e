import { describe, expect, it } from "vitest";
import { registry } from "./index";
import { operationDescriptors } from "./descriptors";

/**
 * The browser's list of operations (./descriptors.ts) and the registry (./index.ts) are two lists
 * of the same operations: an operation added to one and not the other, or a descriptor field the
 * whole operation overrides, fails here.
 */
describe("operation descriptors (the browser's registry)", () => {
  it("lists the registry's operations, in its order", () => {
    expect(operationDescriptors.map((operation) => operation.id)).toEqual(registry.map((operation) => operation.id));
  });

  it.each(registry.map((operation, index) => [operation.id, operation, index] as const))(
    "%s: its descriptor is what the registry's operation says",
    (_id, operation, index) => {
      const descriptor = operationDescriptors[index];
      expect(descriptor).toBeDefined();
      for (const [field, value] of Object.entries(descriptor ?? {})) {
        expect({ field, value: operation[field as keyof typeof operation] }).toEqual({ field, value });
      }
    },
  );
});
