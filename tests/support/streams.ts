/**
 * A request body made as it is read: `head`, then `fillerBytes` bytes of "x", then `tail`. Lets a
 * test send a 100 MB line without ever holding it.
 */
export const generatedBody = (head: string, fillerBytes: number, tail: string): ReadableStream<Uint8Array> => {
  const encoder = new TextEncoder();
  const piece = new Uint8Array(1024 * 1024).fill(0x78);
  let filler = fillerBytes;
  let stage: "head" | "filler" | "tail" | "done" = "head";
  return new ReadableStream<Uint8Array>({
    pull: (controller) => {
      if (stage === "head") {
        controller.enqueue(encoder.encode(head));
        stage = filler > 0 ? "filler" : "tail";
      } else if (stage === "filler") {
        const size = Math.min(filler, piece.length);
        controller.enqueue(piece.subarray(0, size));
        filler -= size;
        if (filler === 0) stage = "tail";
      } else if (stage === "tail") {
        controller.enqueue(encoder.encode(tail));
        stage = "done";
      } else controller.close();
    },
  });
};
