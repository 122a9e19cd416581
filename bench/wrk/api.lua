-- One wrk script for every benchmark of bench/run.ts, chosen by the arguments after `--`:
--   static                      the URL as given (GET)
--   create <orderPrefix>        POST a CreatePaymentRequest with a unique orderId per request
--   sdk-create <orderPrefix>    the same with a new Idempotency-Key on each, as the SDK sends a create
--   charge <orderPrefix> <id>   the same with paymentMethodId <id>: a merchant-initiated charge of a saved card
--   ids <file> <METHOD> <path>  one line of <file> per request, substituted for {} in <path>;
--                               each thread takes its own lines, so no two requests share one
--                               (a pool that runs out starts again from its first line)
-- The API key comes from the environment (BENCH_API_KEY), never from the command line.
-- done() prints one JSON line that bench/lib/wrk.ts parses.

local threads = {}
local counter = 0

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

local mode, lines, method, template, prefix, nthreads, methodId
local key = os.getenv("BENCH_API_KEY")

function init(args)
  mode = args[1] or "static"
  nthreads = tonumber(os.getenv("BENCH_WRK_THREADS") or "1")
  if key then wrk.headers["X-Api-Key"] = key end
  if mode == "create" or mode == "sdk-create" or mode == "charge" then
    prefix = args[2] .. "-" .. tid .. "-"
    methodId = args[3]
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "application/json"
  elseif mode == "ids" then
    lines = {}
    local i = 0
    for line in io.lines(args[2]) do
      if i % nthreads == tid then table.insert(lines, line) end
      i = i + 1
    end
    method, template = args[3], args[4]
  end
end

local function createBody()
  return '{"orderId":"' .. prefix .. counter .. '","amountKopecks":' .. (10000 + counter % 90000) ..
    ',"description":"Bench order","telegramId":"123456789","metadata":{"cart":"' .. counter .. '"}}'
end

function request()
  counter = counter + 1
  if mode == "create" then
    return wrk.format(nil, nil, nil, createBody())
  elseif mode == "sdk-create" then
    -- Unique per request and per run (the warm-up has another prefix): the SDK's is a random UUID.
    wrk.headers["Idempotency-Key"] = "k-" .. prefix .. counter
    return wrk.format(nil, nil, nil, createBody())
  elseif mode == "charge" then
    local body = '{"orderId":"' .. prefix .. counter .. '","amountKopecks":' .. (10000 + counter % 90000) ..
      ',"description":"Bench subscription","paymentMethodId":"' .. methodId .. '"}'
    return wrk.format(nil, nil, nil, body)
  elseif mode == "ids" then
    local line = lines[(counter - 1) % #lines + 1]
    return wrk.format(method, (template:gsub("{}", line)))
  end
  return wrk.format()
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"bytes":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,' ..
    '"statusErrors":%d,"timeouts":%d,"p50Us":%d,"p90Us":%d,"p99Us":%d,"maxUs":%d,"meanUs":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
