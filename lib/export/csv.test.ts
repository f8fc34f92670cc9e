import { parseCsv } from "@/tests/support/csv";
import { describe, expect, it } from "vitest";
import { csvField, toCsv, type CsvColumn } from "./csv";

type Row = { id: string; name: string | null; active: boolean; score?: number };

const columns: CsvColumn<Row>[] = [
  { header: "id", value: (row) => row.id },
  { header: "name", value: (row) => row.name },
  { header: "active", value: (row) => row.active },
  { header: "score", value: (row) => row.score },
];


describe("toCsv", () => {
  it("writes a header row and one line per row, CRLF-terminated", () => {
    const csv = toCsv([{ id: "1", name: "Ann", active: true, score: 3 }], columns);
    expect(csv).toBe("id,name,active,score\r\n1,Ann,true,3\r\n");
  });

  it("writes only the header for no rows", () => {
    expect(toCsv([], columns)).toBe("id,name,active,score\r\n");
  });

  it("quotes fields with commas and doubles inner quotes", () => {
    const csv = toCsv([{ id: "1", name: 'Renée "Rae" O\'Brien, PhD', active: false }], columns);
    expect(csv).toBe('id,name,active,score\r\n1,"Renée ""Rae"" O\'Brien, PhD",false,\r\n');
  });

  it("quotes fields with line breaks and keeps them verbatim", () => {
    const csv = toCsv([{ id: "1", name: "line one\nline two\r\nline three", active: true }], columns);
    expect(csv).toContain('"line one\nline two\r\nline three"');
    expect(parseCsv(csv)[1]).toEqual(["1", "line one\nline two\r\nline three", "true", ""]);
  });

  it("writes null and undefined as empty fields", () => {
    expect(toCsv([{ id: "7", name: null, active: false }], columns)).toBe("id,name,active,score\r\n7,,false,\r\n");
  });

  it("keeps unicode (accents, CJK, emoji) unchanged and unquoted", () => {
    const csv = toCsv([{ id: "2", name: "王芳 · Zoë 🌿 Łukasz", active: true }], columns);
    expect(csv).toBe("id,name,active,score\r\n2,王芳 · Zoë 🌿 Łukasz,true,\r\n");
  });

  it("round-trips awkward values through an RFC 4180 reader", () => {
    const rows: Row[] = [
      { id: "1", name: '"', active: true },
      { id: "2", name: ",,,", active: false, score: 0 },
      { id: "3", name: '"quoted", then\nnext line', active: true, score: -1.5 },
      { id: "4", name: "", active: false },
    ];
    expect(parseCsv(toCsv(rows, columns))).toEqual([
      ["id", "name", "active", "score"],
      ["1", '"', "true", ""],
      ["2", ",,,", "false", "0"],
      ["3", '"quoted", then\nnext line', "true", "-1.5"],
      ["4", "", "false", ""],
    ]);
  });

  it("escapes header cells too", () => {
    expect(toCsv([], [{ header: 'a,"b"', value: () => null }])).toBe('"a,""b"""\r\n');
  });
});

describe("csvField", () => {
  it("leaves plain text alone", () => {
    expect(csvField("plain text")).toBe("plain text");
  });

  it("quotes a lone carriage return", () => {
    expect(csvField("a\rb")).toBe('"a\rb"');
  });
});

describe("defusing spreadsheet formulas (OWASP CSV injection)", () => {
  it("prefixes a text cell starting with = + - @ tab or CR with '", () => {
    expect(csvField('=HYPERLINK("http://evil.example","x")')).toBe(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(csvField("@SUM(A1:A9)")).toBe("'@SUM(A1:A9)");
    expect(csvField("+cmd|' /C calc'!A0")).toBe("'+cmd|' /C calc'!A0");
    expect(csvField("-2+3")).toBe("'-2+3");
    expect(csvField("\tx")).toBe("'\tx");
    expect(csvField("\rx")).toBe(`"'\rx"`);
  });

  it("leaves numbers, plain numbers written as text, and other text as they are", () => {
    expect(csvField(-12.5)).toBe("-12.5");
    expect(csvField(-3)).toBe("-3");
    expect(csvField("-12.5")).toBe("-12.5");
    expect(csvField("+44")).toBe("+44");
    expect(csvField("a=b")).toBe("a=b");
    expect(csvField("2025-06-14")).toBe("2025-06-14");
  });

  it("defuses through toCsv, the browser downloads' writer, too", () => {
    const csv = toCsv([{ id: "1", name: "=1+1", active: true, score: -1 }], columns);
    expect(csv).toBe("id,name,active,score\r\n1,'=1+1,true,-1\r\n");
  });
});
