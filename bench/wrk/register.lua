-- bench/register.sh: POST /v1/apps/{id}/subscriptions with the SDK key. Four in five register a
-- new token with tags and an external_id; one in five re-registers a known token (ca… seeded
-- KNOWN of them), which counts a session. Environment: APP, SDK, KNOWN.
local app, sdk, known = os.getenv("APP"), os.getenv("SDK"), tonumber(os.getenv("KNOWN"))
local serial = 0
local threads = 0
local stamp = os.time()

function setup(thread)
  threads = threads + 1
  thread:set("thread_number", threads)
end

function init(args)
  math.randomseed(stamp * 1000 + (thread_number or 0))
end

function request()
  serial = serial + 1
  local headers = { ["Content-Type"] = "application/json", ["X-OP-SDK-Key"] = sdk }
  local body
  if serial % 5 == 0 then
    body = string.format('{"token":"ca%062x","app_version":"2.1"}', math.random(known))
  else
    local token = string.format("bb%08x%02x%052x", stamp % 0xffffffff, thread_number or 0, serial)
    body = string.format('{"token":"%s","external_id":"r-%d-%d-%d","tags":{"plan":"pro","level":"%d"},' ..
                         '"language":"en","timezone":"Europe/Paris"}', token, stamp, thread_number or 0, serial, serial % 50)
  end
  return wrk.format("POST", "/v1/apps/" .. app .. "/subscriptions", headers, body)
end
