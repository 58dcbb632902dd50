// Shopkeeper's web client: `import { Shopkeeper } from "./shopkeeper-web/index.js"` from a <script type="module">.

export { Shopkeeper } from "./src/shopkeeper.js";
export { ShopkeeperError, isRetryableStatus } from "./src/errors.js";
export { MemoryStorage } from "./src/storage.js";
export { AnswerVerifier } from "./src/signing.js";
export { isAnonymousID } from "./src/ids.js";
