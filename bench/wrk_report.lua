-- wrk script for bench/load.py: counts non-2xx responses (wrk itself only counts >= 400) and
-- prints one machine-readable line with the totals and latency percentiles (microseconds).
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  non2xx = 0
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  end
end

function done(summary, latency, requests)
  local non = 0
  for _, thread in ipairs(threads) do
    non = non + thread:get("non2xx")
  end
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests": %d, "duration_us": %d, "bytes": %d, "non2xx": %d, ' ..
    '"connect_errors": %d, "read_errors": %d, "write_errors": %d, "timeout_errors": %d, ' ..
    '"p50_us": %d, "p90_us": %d, "p99_us": %d, "max_us": %d}\n',
    summary.requests, summary.duration, summary.bytes, non,
    e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
