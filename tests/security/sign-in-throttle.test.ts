import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INVALID_CREDENTIALS, SIGN_IN_LIMITS, SignInError, signInWithPassword } from "@/lib/auth/sign-in";
import type { Db } from "@/lib/db/client";
import { hashPassword } from "@/lib/users/passwords";
import { createUser } from "@/lib/users/repository";
import { testDatabases } from "@/tests/support/databases";

/**
 * Sign-in throttling (docs/security.md "Sessions and sign-in") cannot be turned against the account's owner.
 * signInWithPassword is the function the credentials provider calls with the client address
 * (lib/auth/options.ts); where that address comes from is lib/auth/client-ip's business.
 */
const TOO_MANY = /^Too many sign-in attempts\. Try again in \d+ minutes?\.$/;

const attempt = async (db: Db, email: string, password: string, ip: string): Promise<string> => {
  try {
    await signInWithPassword(db, { email, password, ip });
    return "signed in";
  } catch (error) {
    if (error instanceof SignInError) return error.message;
    throw error;
  }
};

let run = 0;
const unique = (label: string) => `${label}-${Date.now().toString(36)}-${(run += 1)}@example.test`;

const databases = await testDatabases();

describe.each(databases)("sign-in throttling on $name", (database) => {
  let db: Db;
  // The limits live in this process (memory without REDIS_URL): each database gets its own addresses.
  const net = 10 + databases.indexOf(database);
  const at = (host: number) => `${net}.0.0.${host}`;
  const password = "the owner's password 1";
  let passwordHash: string;

  const owner = async (label: string) => {
    const email = unique(label);
    await createUser(db, { email, name: label, role: "admin", passwordHash, creditAllowance: 0 });
    return email;
  };

  beforeAll(async () => {
    db = await database.open();
    passwordHash = await hashPassword(password);
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await database.cleanup();
  });

  it("an attacker failing 30 times from other addresses does not stop the owner at their usual address", async () => {
    const email = await owner("owner");
    // The owner has signed in from home before.
    expect(await attempt(db, email, password, at(10))).toBe("signed in");
    const answers: string[] = [];
    for (let index = 0; index < 30; index += 1) {
      answers.push(await attempt(db, email, `guess ${index}`, at(20 + index)));
    }
    // The attacker is bounded: refused once the account's budget for strangers is spent …
    expect(answers.slice(0, SIGN_IN_LIMITS.perAccountFromUnfamiliar.points).every((answer) => answer === INVALID_CREDENTIALS)).toBe(true);
    expect(answers.slice(SIGN_IN_LIMITS.perAccountFromUnfamiliar.points).every((answer) => TOO_MANY.test(answer))).toBe(true);
    // … and still refused with the right password from a stranger's address.
    expect(await attempt(db, email, password, at(21))).toMatch(TOO_MANY);
    // The owner at home signs in, in the middle of the attack, as do their own typos afterwards.
    expect(await attempt(db, email, password, at(10))).toBe("signed in");
    expect(await attempt(db, email, "owner typo", at(10))).toBe(INVALID_CREDENTIALS);
    expect(await attempt(db, email, password, at(10))).toBe("signed in");
  });

  it("five failures lock one (account, address) pair only: the owner elsewhere still signs in", async () => {
    const email = await owner("pair");
    for (let index = 0; index < SIGN_IN_LIMITS.perAccountAddress.points; index += 1) {
      expect(await attempt(db, email, `guess ${index}`, at(50))).toBe(INVALID_CREDENTIALS);
    }
    expect(await attempt(db, email, password, at(50))).toMatch(TOO_MANY);
    // In capitals and with spaces it is the same account.
    expect(await attempt(db, `  ${email.toUpperCase()} `, password, at(50))).toMatch(TOO_MANY);
    // Never signed in before, at a new address: still fine (the account-wide budget is not spent).
    expect(await attempt(db, email, password, at(51))).toBe("signed in");
  });

  it("one address guessing many accounts is stopped after 100 failures, other addresses are not", async () => {
    const sprayer = at(99);
    const answers: string[] = [];
    for (let index = 0; index <= SIGN_IN_LIMITS.perAddress.points; index += 1) {
      answers.push(await attempt(db, unique("spray"), "Password123!", sprayer));
    }
    expect(answers.slice(0, SIGN_IN_LIMITS.perAddress.points).every((answer) => answer === INVALID_CREDENTIALS)).toBe(true);
    expect(answers.at(-1)).toMatch(TOO_MANY);
    const email = await owner("bystander");
    expect(await attempt(db, email, password, sprayer)).toMatch(TOO_MANY);
    expect(await attempt(db, email, password, at(100))).toBe("signed in");
  }, 120_000);

  it("successful sign-ins do not use up their address's budget", async () => {
    const email = await owner("frequent");
    for (let index = 0; index < 3; index += 1) expect(await attempt(db, email, password, at(200))).toBe("signed in");
    for (let index = 0; index < SIGN_IN_LIMITS.perAccountAddress.points - 1; index += 1) {
      expect(await attempt(db, email, `typo ${index}`, at(200))).toBe(INVALID_CREDENTIALS);
    }
    expect(await attempt(db, email, password, at(200))).toBe("signed in");
  });
});
