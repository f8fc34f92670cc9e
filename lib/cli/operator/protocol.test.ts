import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkOperatorSocket, operatorSocketPath, parseFrame, parseRequest } from "./protocol";

const directories: string[] = [];
const servers: net.Server[] = [];

/** An owner-only DATA_DIR with a listening socket where the server puts its own. */
const dataDirWithSocket = async (): Promise<string> => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sl-opsock-"));
  directories.push(dataDir);
  fs.chmodSync(dataDir, 0o700);
  const server = net.createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(operatorSocketPath(dataDir), resolve));
  fs.chmodSync(operatorSocketPath(dataDir), 0o600);
  return dataDir;
};

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  for (const directory of directories) fs.rmSync(directory, { recursive: true, force: true });
});

describe("the operator socket's request line", () => {
  const valid = { v: 1, command: "workspaces", args: ["credits", "wst_1", "5"], cwd: "/srv", tty: false };

  it("accepts a command's arguments with the caller's directory", () => {
    expect(parseRequest(JSON.stringify(valid))).toEqual({ ok: true, request: valid });
  });

  it("names what is wrong with anything else", () => {
    expect(parseRequest("{")).toEqual({ ok: false, problem: "not a JSON object" });
    expect(parseRequest("[]")).toMatchObject({ ok: false });
    expect(parseRequest(JSON.stringify({ ...valid, command: "sh" }))).toEqual({ ok: false, problem: "command: command must be one of keys, workspaces, import, export, db" });
    expect(parseRequest(JSON.stringify({ ...valid, args: [1] }))).toMatchObject({ ok: false, problem: expect.stringMatching(/^args\.0: /) });
    expect(parseRequest(JSON.stringify({ ...valid, cwd: "." }))).toEqual({ ok: false, problem: "cwd: cwd must be an absolute path" });
    expect(parseRequest(JSON.stringify({ ...valid, args: Array.from({ length: 513 }, () => "x") }))).toMatchObject({ ok: false, problem: expect.stringMatching(/^args: /) });
  });

  it("answer lines are one of out, err, exit", () => {
    expect([parseFrame('{"out":"a\\n"}'), parseFrame('{"err":"b"}'), parseFrame('{"exit":3}')]).toEqual([{ out: "a\n" }, { err: "b" }, { exit: 3 }]);
    expect([parseFrame('{"exit":"0"}'), parseFrame('{"out":"a","exit":0}'), parseFrame("nope")]).toEqual([null, null, null]);
  });
});

describe("checkOperatorSocket: whether a CLI may send its command", () => {
  it("a socket of this user, 0600, in a 0700 DATA_DIR is usable; none is absent", async () => {
    const dataDir = await dataDirWithSocket();
    expect(checkOperatorSocket(dataDir)).toEqual({ state: "usable" });
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "sl-opsock-none-"));
    directories.push(empty);
    expect(checkOperatorSocket(empty)).toEqual({ state: "absent" });
  });

  it("refuses a socket others may connect to, a DATA_DIR others may enter, and a file that is no socket", async () => {
    const loose = await dataDirWithSocket();
    fs.chmodSync(operatorSocketPath(loose), 0o660);
    expect(checkOperatorSocket(loose)).toEqual({ state: "unsafe", reason: "its mode 0660 lets other users connect (it must be 0600)" });
    const openDir = await dataDirWithSocket();
    fs.chmodSync(openDir, 0o755);
    expect(checkOperatorSocket(openDir)).toEqual({ state: "unsafe", reason: "DATA_DIR's mode 0755 lets other users in (it must be 0700)" });
    const plain = fs.mkdtempSync(path.join(os.tmpdir(), "sl-opsock-file-"));
    directories.push(plain);
    fs.writeFileSync(operatorSocketPath(plain), "", { mode: 0o600 });
    expect(checkOperatorSocket(plain)).toEqual({ state: "unsafe", reason: "it is not a socket" });
  });

  it.runIf(process.getuid?.() === 0)("refuses a socket of another user (a listener that user planted)", async () => {
    const dataDir = await dataDirWithSocket();
    fs.lchownSync(operatorSocketPath(dataDir), 4242, 4242);
    expect(checkOperatorSocket(dataDir)).toEqual({ state: "unsafe", reason: "it belongs to user 4242, not to this user (0)" });
  });
});
