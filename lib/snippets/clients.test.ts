import { describe, expect, it } from "vitest";
import { registry } from "@/lib/operations";
import { operationDocs } from "@/lib/openapi/docs";
import { ACCOUNT_CLIENT_NAMES, pythonClientSnippet, sdkSnippet } from "./clients";
import type { ApiCall } from "./call";

/**
 * The clients' snippets name the generated methods (the registry's client names) and write a page
 * number as a number; they read the key from the environment and never hold one. Running them
 * against the server: tests/api/snippets.test.ts.
 */
const docs = operationDocs(registry);
const namesOf = (id: string) => {
  const names = docs.find((operation) => operation.name === id)?.client;
  if (!names) throw new Error(`no operation ${id}`);
  return names;
};

const publications: ApiCall = {
  baseUrl: "https://lookup.example.com/",
  path: "/v1/jobsite/get_user_publications",
  params: [
    ["urn", "urn:li:member:3000000001"],
    ["page", "2"],
  ],
};

describe("the SDK snippet", () => {
  it("calls the generated method with the form's parameters, a page as a number", () => {
    const code = sdkSnippet(publications, namesOf("get_user_publications"));
    expect(code).toContain('const client = new SocialLookup({ apiKey: process.env.SOCIAL_LOOKUP_API_KEY, baseUrl: "https://lookup.example.com" });');
    expect(code).toContain('const answer = await client.publications({ urn: "urn:li:member:3000000001", page: 2 });');
  });

  it("leaves empty fields out and quotes what is not a plain number", () => {
    const code = sdkSnippet(
      { baseUrl: "", path: "/v1/pinsite/followers", params: [["userid", ""], ["node_id", "VXNl"], ["cursor", "MjU.c2ln"]] },
      namesOf("followers"),
    );
    expect(code).toContain('client.followers({ node_id: "VXNl", cursor: "MjU.c2ln" })');
    expect(code).toContain('baseUrl: "http://localhost:3000"');
    expect(sdkSnippet({ ...publications, params: [["urn", "u"], ["page", "02"]] }, namesOf("get_user_publications"))).toContain('page: "02"');
  });

  it("asks for the balance with account()", () => {
    expect(sdkSnippet({ baseUrl: "http://h", path: "/v1/account", params: [] }, ACCOUNT_CLIENT_NAMES)).toContain("await client.account();");
  });
});

describe("the Python client snippet", () => {
  it("calls the generated method with keyword arguments", () => {
    const code = pythonClientSnippet(publications, namesOf("get_user_publications"));
    expect(code).toContain('client = SocialLookup(api_key=os.environ["SOCIAL_LOOKUP_API_KEY"], base_url="https://lookup.example.com")');
    expect(code).toContain('answer = client.publications(urn="urn:li:member:3000000001", page=2)');
    expect(pythonClientSnippet({ baseUrl: "http://h", path: "/v1/eventsite/event_details_id", params: [["event_id", "1"]] }, namesOf("event_details_id"))).toContain(
      'client.event_details_id(event_id="1")',
    );
  });

  it("passes a name Python cannot take as a keyword through **{…}", () => {
    expect(pythonClientSnippet({ baseUrl: "http://h", path: "/v1/x", params: [["from", "a"], ["to-day", "b"]] }, { method: "x", python: "x", integers: [] })).toContain(
      'client.x(**{"from": "a", "to-day": "b"})',
    );
  });
});
