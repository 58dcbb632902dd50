// Redemption codes: the web visitor's one-time code for moving their web purchases into the app, against a fake
// fetch.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryStorage, Shopkeeper } from "../index.js";
import { baseURL, fakeClock, fakeFetch, problem, publicKey } from "./support.js";

function client(answers) {
  const fake = fakeFetch(answers);
  const shop = Shopkeeper.configure({
    apiKey: publicKey,
    baseURL,
    storage: new MemoryStorage(),
    fetch: fake.fetch,
    clock: fakeClock(),
    random: () => 1,
  });
  return { shop, fake };
}

describe("redemption codes", () => {
  it("issues a code for the visitor's anonymous id", async () => {
    const issued = { code: "K7QXM-3HWPA-9RZTD-C4NVB", expires_at: "2026-12-28T15:00:00Z" };
    const { shop, fake } = client([{ status: 201, body: issued }]);
    const answer = await shop.redemptionCode();
    assert.deepEqual(answer, issued);
    const [request] = fake.seen;
    assert.equal(request.method, "POST");
    assert.equal(request.url.pathname, `/v1/customers/${shop.anonymousID}/redemption-codes`);
    assert.equal(request.body, undefined);
  });

  it("passes the server's refusal on with its code", async () => {
    const { shop } = client([problem(403, "secret_key_required")]);
    await assert.rejects(shop.redemptionCode(), { code: "secret_key_required" });
  });

  it("refuses an answer without a code", async () => {
    const { shop } = client([{ status: 201, body: { expires_at: "2026-12-28T15:00:00Z" } }]);
    await assert.rejects(shop.redemptionCode(), { kind: "decoding" });
  });
});
