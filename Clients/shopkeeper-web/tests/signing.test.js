// Signed answers (docs/openapi.yaml, "Signed answers"): keys made with WebCrypto here, answers signed by this
// test as the gateway's AnswerSigner signs them, and the client refusing unsigned, altered, replayed, stale or
// foreign answers.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { AnswerVerifier, MemoryStorage, Shopkeeper } from "../index.js";
import { baseURL, customerInfo, fakeClock, fakeFetch, publicKey } from "./support.js";

const keyPair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
const otherPair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
const rawPublic = async (pair) => Buffer.from(await crypto.subtle.exportKey("raw", pair.publicKey)).toString("base64");
const trusted = { k1: await rawPublic(keyPair) };

/**
 * The X-Shopkeeper-Signature of an answer, as the gateway's AnswerSigner makes it.
 * @param {{ status: number, target: string, nonce: string, t: number, etag?: string, body?: string,
 *   keyID?: string, pair?: CryptoKeyPair }} answer
 */
async function sign({ status, target, nonce, t, etag = "", body = "", keyID = "k1", pair = keyPair }) {
  const digest = createHash("sha256").update(body).digest("hex");
  const message = ["shopkeeper-answer-v1", status, target, nonce, t, etag, digest].join("\n");
  const signature = await crypto.subtle.sign("Ed25519", pair.privateKey, new TextEncoder().encode(message));
  return `v1;key=${keyID};t=${t};sig=${Buffer.from(signature).toString("base64")}`;
}

const clock = fakeClock();
const now = Math.floor(clock.now() / 1000);

/**
 * A gateway answer signed for the request it answers; `change` alters it after signing (or the signing itself).
 * @param {{ status?: number, body?: unknown, etag?: string }} answer
 * @param {(signed: { status: number, headers: Record<string, string>, body: string | undefined }, request: object)
 *   => Promise<void> | void} [change]
 */
function signed({ status = 200, body, etag }, change = () => {}) {
  return async (request) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const target = request.url.pathname + request.url.search;
    const nonce = request.headers["x-shopkeeper-nonce"];
    const headers = etag ? { ETag: etag } : {};
    headers["X-Shopkeeper-Signature"] = await sign({ status, target, nonce, t: now, etag, body: text ?? "" });
    const answer = { status, headers, body: text };
    await change(answer, request);
    return answer;
  };
}

function client(answers) {
  const fake = fakeFetch(answers);
  const shop = Shopkeeper.configure({
    apiKey: publicKey,
    baseURL,
    storage: new MemoryStorage(),
    fetch: fake.fetch,
    clock,
    random: () => 0,
    signingKeys: trusted,
    appUserID: "user_1",
  });
  return { shop, fake };
}

describe("signed answers", () => {
  it("are taken when a trusted key signed them for this request, 304 included", async () => {
    const info = customerInfo("user_1");
    const { shop, fake } = client([
      signed({ body: info, etag: '"c1"' }),
      signed({ status: 304, etag: '"c1"' }),
      signed({ body: { products: [] }, etag: '"k1"' }),
    ]);
    assert.deepEqual(await shop.customerInfo(), info);
    assert.deepEqual(await shop.customerInfo(), info);
    await shop.catalog({ platform: "play_store", locale: "de-AT" });
    const nonces = fake.seen.map((request) => request.headers["x-shopkeeper-nonce"]);
    assert.equal(new Set(nonces).size, 3);
    for (const nonce of nonces) assert.match(nonce, /^[0-9a-f-]{36}$/);
  });

  const refusals = {
    unsigned: (answer) => {
      delete answer.headers["X-Shopkeeper-Signature"];
    },
    "an altered body": (answer) => {
      answer.body = answer.body.replace('"refund_count":0', '"refund_count":1');
    },
    "an altered ETag": (answer) => {
      answer.headers.ETag = '"c2"';
    },
    "an altered status": (answer) => {
      answer.status = 201;
    },
    "another request's nonce": async (answer, request) => {
      const target = request.url.pathname;
      answer.headers["X-Shopkeeper-Signature"] = await sign({ status: 200, target, nonce: "other", t: now, etag: '"c1"', body: answer.body });
    },
    "another path": async (answer, request) => {
      const nonce = request.headers["x-shopkeeper-nonce"];
      answer.headers["X-Shopkeeper-Signature"] = await sign({ status: 200, target: "/v1/customers/user_2", nonce, t: now, etag: '"c1"', body: answer.body });
    },
    "a key the app does not trust": async (answer, request) => {
      const nonce = request.headers["x-shopkeeper-nonce"];
      const target = request.url.pathname;
      answer.headers["X-Shopkeeper-Signature"] = await sign({ status: 200, target, nonce, t: now, etag: '"c1"', body: answer.body, keyID: "k1", pair: otherPair });
    },
    "an unknown key id": (answer) => {
      answer.headers["X-Shopkeeper-Signature"] = answer.headers["X-Shopkeeper-Signature"].replace("key=k1", "key=k9");
    },
    "a stale time": async (answer, request) => {
      const nonce = request.headers["x-shopkeeper-nonce"];
      const target = request.url.pathname;
      answer.headers["X-Shopkeeper-Signature"] = await sign({ status: 200, target, nonce, t: now - 301, etag: '"c1"', body: answer.body });
    },
    "another version": (answer) => {
      answer.headers["X-Shopkeeper-Signature"] = answer.headers["X-Shopkeeper-Signature"].replace("v1;", "v2;");
    },
    "a malformed signature": (answer) => {
      answer.headers["X-Shopkeeper-Signature"] = "v1;key=k1;t=soon;sig=***";
    },
  };
  for (const [name, change] of Object.entries(refusals)) {
    it(`are refused with ${name}, not retried and not cached`, async () => {
      const info = customerInfo("user_1");
      const { shop, fake } = client([signed({ body: info, etag: '"c1"' }, change), signed({ body: info, etag: '"c1"' })]);
      await assert.rejects(shop.customerInfo(), { name: "ShopkeeperError", kind: "untrusted_answer" });
      assert.equal(fake.seen.length, 1);
      // Nothing was kept: the next read has no If-None-Match to send.
      assert.deepEqual(await shop.customerInfo(), info);
      assert.equal(fake.seen[1].headers["if-none-match"], undefined);
    });
  }

  it("refuse a 304 that vouches for another entity tag than the one kept", async () => {
    const { shop } = client([signed({ body: customerInfo("user_1"), etag: '"c1"' }), signed({ status: 304, etag: '"c0"' })]);
    await shop.customerInfo();
    await assert.rejects(shop.customerInfo(), { kind: "untrusted_answer" });
  });

  it("leave unsigned problem answers to the error mapping (the gateway signs only the app's answers)", async () => {
    const { shop } = client([{ status: 401, body: { type: "about:blank", title: "Unauthorized", status: 401, detail: "no", code: "unauthorized" } }]);
    await assert.rejects(shop.customerInfo(), { kind: "server", code: "unauthorized" });
  });

  it("refuse everything when the configured key is not a base64 Ed25519 public key", async () => {
    const verifier = new AnswerVerifier({ k1: "bm90IGEga2V5" }, { now: clock.now });
    const signature = await sign({ status: 200, target: "/", nonce: "n", t: now });
    await assert.rejects(verifier.verify({ status: 200, signature, etag: null, body: new Uint8Array() }, "/", "n"), {
      kind: "untrusted_answer",
      message: /not a base64 Ed25519 public key/,
    });
  });
});

describe("the gateway's own signatures", () => {
  // Captured from the gateway's AnswerSigner on a local stack (tests/fixtures/server-signed-answer.json says how).
  const vector = JSON.parse(readFileSync(new URL("./fixtures/server-signed-answer.json", import.meta.url), "utf8"));
  const at = (answer) => Number(/;t=([0-9]+);/.exec(answer.signature)[1]) * 1000;
  const received = (answer, body = answer.body) => ({
    status: answer.status,
    signature: answer.signature,
    etag: answer.etag,
    body: new TextEncoder().encode(body),
  });

  it("verify, 200 and 304", async () => {
    for (const { request, answer } of [vector, vector.not_modified]) {
      const verifier = new AnswerVerifier(vector.public_key, { now: () => at(answer) });
      await verifier.verify(received(answer), request.target, request.nonce);
    }
  });

  it("do not verify altered, for another request, or hours later", async () => {
    const { request, answer } = vector;
    const verifier = new AnswerVerifier(vector.public_key, { now: () => at(answer) });
    const refused = { kind: "untrusted_answer" };
    await assert.rejects(verifier.verify(received(answer, answer.body.replace("[]", "[1]")), request.target, request.nonce), refused);
    await assert.rejects(verifier.verify(received(answer), "/v1/customers/web%20vector%2F2", request.nonce), refused);
    await assert.rejects(verifier.verify(received(answer), request.target, `${request.nonce}x`), refused);
    const later = new AnswerVerifier(vector.public_key, { now: () => at(answer) + 3600_000 });
    await assert.rejects(later.verify(received(answer), request.target, request.nonce), refused);
  });
});

describe("the ETag cache under signed answers", () => {
  it("is kept in memory only: a body edited in storage is never vouched for by a signed 304", async () => {
    const storage = new MemoryStorage();
    const info = customerInfo("user_1");
    const fake = fakeFetch([signed({ body: info, etag: '"c1"' }), signed({ status: 304, etag: '"c1"' })]);
    const options = { apiKey: publicKey, baseURL, storage, fetch: fake.fetch, clock, signingKeys: trusted, appUserID: "user_1" };
    const shop = Shopkeeper.configure(options);
    assert.deepEqual(await shop.customerInfo(), info);
    assert.deepEqual(await shop.customerInfo(), info);
    assert.deepEqual(
      [...storage.items.keys()].filter((key) => key.startsWith("shopkeeper.etag:")),
      [],
    );
    // A forged entry in storage (as a user could write into localStorage) is not even read.
    const forged = { ...info, entitlements: { pro: { active: true } } };
    storage.setItem(`shopkeeper.etag:${baseURL}/v1/customers/user_1`, JSON.stringify({ etag: '"c1"', body: JSON.stringify(forged) }));
    const next = fakeFetch([signed({ body: info, etag: '"c1"' })]);
    const nextPage = Shopkeeper.configure({ ...options, fetch: next.fetch });
    assert.deepEqual(await nextPage.customerInfo({ fetchPolicy: "cache-first" }), info);
    assert.equal(next.seen[0].headers["if-none-match"], undefined);
  });
});
