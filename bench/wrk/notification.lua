-- bench/transactional.sh: POST /notifications to one user by external_id. Half the requests
-- carry an Idempotency-Key (unique), a quarter name a template; every body has Liquid.
-- Environment: APP, REST, USERS (users u-1 … u-USERS), TEMPLATE (a template id).
local app, rest, users, template = os.getenv("APP"), os.getenv("REST"), tonumber(os.getenv("USERS")), os.getenv("TEMPLATE")
local serial = 0
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("thread_number", threads)
end

function init(args)
  math.randomseed(os.time() * 1000 + (thread_number or 0))
end

function request()
  serial = serial + 1
  local user = math.random(users)
  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Key " .. rest }
  if serial % 2 == 0 then
    headers["Idempotency-Key"] = string.format("%08x-%04x-4000-8000-%012x", os.time() % 0xffffffff, thread_number or 0, serial)
  end
  local body
  if serial % 4 == 1 then
    body = string.format('{"app_id":"%s","template_id":"%s","include_aliases":{"external_id":["u-%d"]},' ..
                         '"target_channel":"push","custom_data":{"order":"A-%d"}}', app, template, user, serial)
  else
    body = string.format('{"app_id":"%s","include_aliases":{"external_id":["u-%d"]},"target_channel":"push",' ..
                         '"headings":{"en":"Shipped"},"contents":{"en":"Order {{ message.custom_data.order }} is on its way"},' ..
                         '"custom_data":{"order":"A-%d"}}', app, user, serial)
  end
  return wrk.format("POST", "/notifications", headers, body)
end
