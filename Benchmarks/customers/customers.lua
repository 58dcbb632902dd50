-- wrk script: GET /v1/customers/bench-<i> for customers spread over CUSTOMERS ids (Benchmarks/customers/seed.sql),
-- with the public key of KEY. MIX=uniform: every customer alike; MIX=zipf: a skewed mix (Zipf, s = 1: the k-th most
-- asked customer is asked about 1/k as often as the first), the hot ones scattered over the ids; MIX=each: every
-- customer once, in order, then stop (run with one thread: each thread counts on its own). NONCE=1 sends a fresh
-- X-Shopkeeper-Nonce with each request, as ShopkeeperKit does when the app checks signed answers.
local customers = tonumber(os.getenv("CUSTOMERS") or "100000")
local zipf = os.getenv("MIX") == "zipf"
local each = os.getenv("MIX") == "each"
local nonce = os.getenv("NONCE") == "1"
local headers = {}
local next_id = 0
local answered = 0
local log_n = math.log(customers)

function init(args)
    math.randomseed(os.time() * 1000 + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 1000)
    wrk.headers["Authorization"] = "Bearer " .. os.getenv("KEY")
    headers["Authorization"] = wrk.headers["Authorization"]
end

local function pick()
    if each then
        next_id = next_id + 1
        return (next_id - 1) % customers
    end
    if zipf then
        -- P(rank <= k) = ln(k) / ln(n) for s = 1, sampled by inversion.
        local rank = math.floor(math.exp(math.random() * log_n)) - 1
        return (rank * 7919) % customers
    end
    return math.random(0, customers - 1)
end

local sent = 0
function request()
    if nonce then
        sent = sent + 1
        headers["X-Shopkeeper-Nonce"] = string.format("%08x-%d", math.random(0, 0x7fffffff), sent)
        return wrk.format("GET", "/v1/customers/bench-" .. pick(), headers)
    end
    return wrk.format("GET", "/v1/customers/bench-" .. pick())
end

-- Only for MIX=each: a response function makes wrk hand every answer to Lua.
if each then
    function response(status, headers, body)
        answered = answered + 1
        if answered >= customers then wrk.thread:stop() end
    end
end
