/** Lines of a streamed body, decoded as UTF-8, read as they arrive (never the whole body at once). */
export async function* linesOf(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { done, value } = await reader.read();
      if (done) break;
      pending += decoder.decode(value, { stream: true });
      let newline = pending.indexOf("\n");
      while (newline >= 0) {
        const line = pending.slice(0, newline).replace(/\r$/, "");
        pending = pending.slice(newline + 1);
        if (line !== "") yield line;
        newline = pending.indexOf("\n");
      }
    }
    pending += decoder.decode();
    if (pending.trim() !== "") yield pending;
  } finally {
    // A consumer that stops early closes the connection instead of reading the rest.
    await reader.cancel().catch(() => undefined);
  }
}

/** Chunks of a streamed body as text. */
export async function* textChunksOf(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { done, value } = await reader.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      if (text !== "") yield text;
    }
    const rest = decoder.decode();
    if (rest !== "") yield rest;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
