-- wrk script: GET /v1/offerings for customers spread uniformly over CUSTOMERS ids (bench-<i>, the customers
-- Benchmarks/customers/seed.sql writes), as an app asks at launch, with the public key of KEY.
local customers = tonumber(os.getenv("CUSTOMERS") or "100000")

function init(args)
    math.randomseed(os.time() * 1000 + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 1000)
    wrk.headers["Authorization"] = "Bearer " .. os.getenv("KEY")
end

function request()
    local id = math.random(0, customers - 1)
    return wrk.format("GET", "/v1/offerings?app_user_id=bench-" .. id .. "&platform=app_store&app_version=2.0&locale=en")
end
