-- train.lua - the TRAIN workload lorgen profiles: tables, strings, closures, sorting.
local function words(n, seed)
  local out, x = {}, seed
  for i = 1, n do
    x = (x * 1103515245 + 12345) % 2147483648
    local len = 3 + x % 7
    local w = {}
    for k = 1, len do
      x = (x * 1103515245 + 12345) % 2147483648
      w[k] = string.char(97 + x % 26)
    end
    out[i] = table.concat(w)
  end
  return out
end

local list = words(20000, 7)
local counts = {}
for _, w in ipairs(list) do counts[w] = (counts[w] or 0) + 1 end
local keys = {}
for k in pairs(counts) do keys[#keys + 1] = k end
table.sort(keys, function(a, b)
  if counts[a] ~= counts[b] then return counts[a] > counts[b] end
  return a < b
end)

local text = table.concat(list, " ", 1, 5000)
local vowels = select(2, text:gsub("[aeiou]", ""))
local upper = text:upper():sub(1, 40)

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local acc = 0
for i = 1, 20 do acc = acc + fib(i) end

local mt = { __add = function(a, b) return setmetatable({ v = a.v + b.v }, getmetatable(a)) end }
local v = setmetatable({ v = 0 }, mt)
for i = 1, 20000 do v = v + setmetatable({ v = i }, mt) end

print(#keys, keys[1], vowels, upper, acc, v.v)
