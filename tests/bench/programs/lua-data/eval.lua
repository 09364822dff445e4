-- eval.lua - the EVAL workload the benchmark measures: different inputs and mix than train.lua
-- (a serializer, a small matrix kernel, string formatting and pattern matching).
local function serialize(t, out)
  if type(t) == "table" then
    out[#out + 1] = "{"
    local keys = {}
    for k in pairs(t) do keys[#keys + 1] = tostring(k) end
    table.sort(keys)
    for _, k in ipairs(keys) do
      out[#out + 1] = k .. "="
      serialize(t[k] or t[tonumber(k)], out)
      out[#out + 1] = ","
    end
    out[#out + 1] = "}"
  else
    out[#out + 1] = string.format("%q", tostring(t))
  end
end

local records = {}
for i = 1, 3000 do
  records[i] = { id = i, name = "item" .. i, tags = { i % 3, i % 5, i % 7 }, price = i * 1.25 }
end
local out = {}
serialize(records, out)
local blob = table.concat(out)

local n, m = 60, {}
for i = 1, n do m[i] = {} for j = 1, n do m[i][j] = (i * j) % 17 end end
local function mul(a, b)
  local c = {}
  for i = 1, n do
    local ci = {}
    for j = 1, n do
      local s = 0
      for k = 1, n do s = s + a[i][k] * b[k][j] end
      ci[j] = s
    end
    c[i] = ci
  end
  return c
end
local p = mul(m, m)

local hits = 0
for id, name in blob:gmatch('id="(%d+)",name="(item%d+)"') do
  if tonumber(id) % 11 == 0 then hits = hits + #name end
end

print(#blob, p[n][n], hits, string.format("%.2f", records[3000].price))
