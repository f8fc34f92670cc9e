#!/usr/bin/env node
import { main } from "./cli/main.js";

/** `social-lookup`: see ./cli/main.ts. */
process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
