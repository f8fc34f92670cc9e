/**
 * Splits a JSON text that arrives in chunks into its values without parsing the whole: the
 * elements of a top-level array (`[{…}, {…}]`), or a sequence of top-level values (one
 * pretty-printed object, or several). Only brackets, strings and commas are tracked, so memory
 * is the size of the largest single value, not of the file (a value past `maxValueBytes` is
 * dropped as it is read and comes out as an error). Each value comes out as text with the line
 * it starts on; JSON.parse of that text is the caller's (and reports bad values).
 */
export type SplitItem = { line: number; text: string } | { line: number; error: string };

const OUTSIDE_STRING = /["{}[\],\n]/g;
const INSIDE_STRING = /["\\\n]/g;

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09 || code === 0xfeff;

type SplitterLimits = { maxValueBytes: number; tooLarge: string };

export class JsonSplitter {
  constructor(private readonly limits: SplitterLimits = { maxValueBytes: Number.POSITIVE_INFINITY, tooLarge: "value too large" }) {}

  private mode: "start" | "array" | "sequence" | "done" = "start";
  private line = 1;
  // Array mode: what comes next between elements.
  private expecting: "value" | "separator" = "value";
  // The value being read.
  private inValue = false;
  private container = false;
  private depth = 0;
  private inString = false;
  private escapePending = false;
  private valueLine = 0;
  private parts: string[] = [];
  private partsBytes = 0;
  private oversize = false;
  private reportedTrailing = false;

  push(chunk: string): SplitItem[] {
    const items: SplitItem[] = [];
    let index = 0;
    let valueStart = 0;

    const finish = (end: number) => {
      this.keep(chunk.slice(valueStart, end));
      const text = this.parts.join("").trim();
      const oversize = this.oversize;
      this.resetValue();
      this.inValue = false;
      this.depth = 0;
      this.inString = false;
      items.push(oversize ? { line: this.valueLine, error: this.limits.tooLarge } : { line: this.valueLine, text });
    };

    if (this.escapePending && chunk.length > 0) {
      // The previous chunk ended inside a string right after a backslash.
      this.escapePending = false;
      index = 1;
    }

    while (index < chunk.length) {
      if (this.inValue) {
        // Jump to the next character that matters where we are (inside a string or not).
        const significant = this.inString ? INSIDE_STRING : OUTSIDE_STRING;
        significant.lastIndex = index;
        const match = significant.exec(chunk);
        if (!match) {
          index = chunk.length;
          break;
        }
        const at = match.index;
        const char = chunk[at];
        index = at + 1;
        if (this.inString) {
          if (char === "\\") {
            if (index >= chunk.length) this.escapePending = true;
            else index += 1;
          } else if (char === "\n") {
            this.line += 1;
          } else {
            this.inString = false;
            if (this.depth === 0 && !this.container) {
              finish(index);
              this.afterValue();
            }
          }
          continue;
        }
        switch (char) {
          case '"':
            this.inString = true;
            break;
          case "{":
          case "[":
            this.depth += 1;
            break;
          case "}":
          case "]":
            if (this.depth > 0) {
              this.depth -= 1;
              if (this.depth === 0 && this.container) {
                finish(index);
                this.afterValue();
              }
            } else if (char === "]" && this.mode === "array") {
              // A scalar element closed by the array's end.
              finish(at);
              this.mode = "done";
            }
            break;
          case ",":
            if (this.depth === 0 && this.mode === "array") {
              finish(at);
              this.expecting = "value";
            }
            break;
          case "\n":
            this.line += 1;
            if (this.depth === 0 && this.mode === "sequence" && !this.container) finish(at);
            break;
        }
        continue;
      }

      const code = chunk.charCodeAt(index);
      if (isSpace(code)) {
        if (code === 0x0a) this.line += 1;
        index += 1;
        continue;
      }
      const char = chunk[index];
      if (this.mode === "start") {
        if (char === "[") {
          this.mode = "array";
          this.expecting = "value";
          index += 1;
          continue;
        }
        this.mode = "sequence";
      }
      if (this.mode === "done") {
        if (!this.reportedTrailing) {
          items.push({ line: this.line, error: "unexpected content after the end of the top-level array" });
          this.reportedTrailing = true;
        }
        index = chunk.length;
        break;
      }
      if (this.mode === "array") {
        if (char === "]") {
          this.mode = "done";
          index += 1;
          continue;
        }
        if (this.expecting === "separator") {
          if (char === ",") {
            this.expecting = "value";
            index += 1;
            continue;
          }
          items.push({ line: this.line, error: `expected "," or "]" between array elements, found ${JSON.stringify(char)}` });
        }
      }
      // A value starts here; the branch above reads it, this character included.
      this.inValue = true;
      this.container = char === "{" || char === "[";
      this.depth = 0;
      this.valueLine = this.line;
      valueStart = index;
    }

    if (this.inValue) this.keep(chunk.slice(valueStart));
    return items;
  }

  /** Whatever is left when the input ends: a last scalar, or an error for an unfinished value or array. */
  end(): SplitItem[] {
    const items: SplitItem[] = [];
    if (this.inValue) {
      const text = this.parts.join("").trim();
      const oversize = this.oversize;
      this.resetValue();
      if (oversize) items.push({ line: this.valueLine, error: this.limits.tooLarge });
      else if (!this.container && !this.inString && this.mode === "sequence") items.push({ line: this.valueLine, text });
      else items.push({ line: this.valueLine, error: "unexpected end of file inside this value" });
      this.inValue = false;
    }
    if (this.mode === "array") items.push({ line: this.line, error: "unexpected end of file: the top-level array is not closed" });
    return items;
  }

  /** Keeps a piece of the current value, or stops keeping it once the value is too large. */
  private keep(piece: string) {
    if (this.oversize) return;
    this.partsBytes += Buffer.byteLength(piece, "utf8");
    if (this.partsBytes > this.limits.maxValueBytes) {
      this.oversize = true;
      this.parts = [];
    } else this.parts.push(piece);
  }

  private resetValue() {
    this.parts = [];
    this.partsBytes = 0;
    this.oversize = false;
  }

  private afterValue() {
    if (this.mode === "array") this.expecting = "separator";
  }
}
