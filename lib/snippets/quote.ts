/**
 * Literals for the snippet languages (shell, JavaScript, Python): any string in, source text out that reads back as
 * exactly that string.
 */

/** POSIX shell: single quotes keep everything literal; a single quote itself is closed, escaped, reopened. */
export const shellQuote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

const hex = (codeUnit: number, width: number): string => codeUnit.toString(16).padStart(width, "0");

/**
 * A double-quoted JavaScript string literal. JSON's escaping covers quotes, backslashes, control
 * characters and lone surrogates; U+2028/U+2029 are escaped too so the snippet also works in
 * engines older than ES2019 and survives editors that treat them as line breaks.
 */
export const jsString = (value: string): string =>
  JSON.stringify(value).replace(/[\u2028\u2029]/g, (char) => `\\u${hex(char.charCodeAt(0), 4)}`);

/** Unicode code points that Python would read as something else inside "...", or that UTF-8 source cannot hold. */
const PYTHON_ESCAPES: Record<string, string> = { "\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * A double-quoted Python 3 string literal. Printable Unicode stays as is (Python 3 source is
 * UTF-8); control characters become \xNN and lone surrogates \uXXXX, which a UTF-8 file cannot hold.
 */
export const pythonString = (value: string): string => {
  let out = '"';
  for (let index = 0; index < value.length; index += 1) {
    const codeUnit = value.charCodeAt(index);
    const char = value.charAt(index);
    const escape = PYTHON_ESCAPES[char];
    if (escape !== undefined) {
      out += escape;
    } else if (codeUnit < 0x20 || codeUnit === 0x7f) {
      out += `\\x${hex(codeUnit, 2)}`;
    } else if (codeUnit >= 0xd800 && codeUnit <= 0xdbff && index + 1 < value.length) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += value.slice(index, index + 2);
        index += 1;
      } else {
        out += `\\u${hex(codeUnit, 4)}`;
      }
    } else if (codeUnit >= 0xd800 && codeUnit <= 0xdfff) {
      out += `\\u${hex(codeUnit, 4)}`;
    } else {
      out += char;
    }
  }
  return `${out}"`;
};
