-- check.lua - run by tests/bench/programs/tcc.sh with a Lua interpreter whose VM, tables,
-- objects, string and math libraries tcc compiled: its output must be that of the interpreter
-- gcc compiled. Touches what those files implement: opcodes and metamethods (lvm.c), the
-- array and hash parts of tables (ltable.c), number/string conversion and formatting
-- (lobject.c), patterns, formats and packing (lstrlib.c), float and integer math (lmathlib.c).
local out = {}
local function say(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
  out[#out + 1] = table.concat(parts, " ")
end

-- Integer and float arithmetic, comparisons, bitwise operators, conversions.
local acc, f = 0, 1.0
for i = 1, 20000 do
  acc = (acc * 31 + i ~ (i << 3)) & 0xffffffff
  f = f * 1.0001 + (i % 7) / 3
  if i % 5000 == 0 then say("arith", i, acc, string.format("%.10g", f), acc // 7, acc % 13, i / 8) end
end
say("minmax", math.maxinteger, math.mininteger, math.maxinteger + 1 == math.mininteger,
    1e308 * 10, -1e308 * 10, math.tointeger(2^53), 7 // 0.0, -7 % 3, 7 % -3, -7.5 % 2)
say("float", math.sqrt(2), math.sin(1), math.cos(1), math.exp(1), math.log(10), math.log(8, 2),
    math.floor(-3.5), math.ceil(-3.5), math.fmod(7, 3), math.fmod(-7, 3), math.abs(-2^63),
    math.ult(1, -1), math.type(1), math.type(1.0), math.type("1"))
math.randomseed(42)
local r = {}
for i = 1, 10 do r[i] = math.random(1000) end
say("random", table.concat(r, ","), string.format("%.6f", math.random()))

-- Tables: array growth, hash part, removal, length, next, sort with a comparator.
local t = {}
for i = 1, 5000 do t[i] = i * i end
for i = 1, 5000, 3 do t["k" .. i] = i end
for i = 1, 5000, 7 do t["k" .. i] = nil end
local n, sum = 0, 0
for k, v in pairs(t) do n = n + 1; sum = sum + v end
say("table", #t, n, sum)
local words = {}
for w in ("the quick brown fox jumps over the lazy dog again and again"):gmatch("%a+") do
  words[#words + 1] = w
end
table.sort(words, function(a, b) return #a < #b or (#a == #b and a < b) end)
say("sort", table.concat(words, " "))
say("unpack", select("#", table.unpack({1, 2, nil, 4}, 1, 4)), table.move({1, 2, 3}, 1, 3, 2)[3])

-- Metatables, closures, varargs, coroutines, errors.
local V = {}
V.__index = V
V.__add = function(a, b) return setmetatable({x = a.x + b.x, y = a.y + b.y}, V) end
V.__eq = function(a, b) return a.x == b.x and a.y == b.y end
V.__lt = function(a, b) return a.x < b.x end
V.__tostring = function(v) return "(" .. v.x .. "," .. v.y .. ")" end
V.__len = function(v) return v.x * v.x + v.y * v.y end
V.__call = function(v, k) return v.x * k end
local function vec(x, y) return setmetatable({x = x, y = y}, V) end
local p = vec(0, 0)
for i = 1, 1000 do p = p + vec(i % 3, -(i % 5)) end
say("meta", tostring(p), #p, p(2), p == vec(p.x, p.y), vec(1, 0) < vec(2, 0))
local function counter()
  local c = 0
  return function(...) c = c + select("#", ...); return c end
end
local c = counter()
for i = 1, 100 do c(i, i, nil) end
say("closure", c())
local gen = coroutine.wrap(function(a)
  for i = 1, 5 do a = coroutine.yield(a * i) end
  return "done"
end)
local ys = {}
for i = 1, 6 do ys[#ys + 1] = tostring(gen(i)) end
say("coroutine", table.concat(ys, " "))
local ok, msg = pcall(function() local x = nil; return x.y end)
say("pcall", ok, (msg:gsub("^.-:%d+: ", "")))
say("error", select(2, pcall(error, {code = 7})).code, select(2, pcall(error, "msg", 0)))

-- Strings: formats, patterns, gsub with captures and functions, pack/unpack, conversions.
say("format", string.format("%5d|%-5s|%05.1f|%x|%X|%o|%e|%g|%q|%a", 42, "ab", 3.14159, 255, 255,
    8, 12345.678, 1e-5, "a\nb\0c", 1.0))
say("tostring", 1e15, 1e16, 2^63, -0.0, 1/3, 100 // 1, 3 | 0, "10" + 5, "3.5" * 2, 10 .. "")
say("tonumber", tonumber("0x1p4"), tonumber("  12  "), tonumber("z", 36), tonumber("1e"),
    tonumber("0x10"), tonumber("10", 2), math.tointeger("8"))
local text = string.rep("key1 = value one; key2=value_two ; k3= 33 ;", 200)
local kv, count = {}, 0
for k, v in text:gmatch("(%w+)%s*=%s*([%w_ ]-)%s*;") do kv[k] = v; count = count + 1 end
say("gmatch", count, kv.key1, kv.key2, kv.k3)
local s2, reps = text:gsub("(%w+)=", function(k) return k:upper() .. ":" end)
say("gsub", reps, #s2, s2:sub(1, 40), (("hello world"):gsub("o", {o = "0"})))
say("find", ("abc[def]ghi"):find("[", 1, true), ("abc[def]ghi"):find("%[(.-)%]"),
    ("  trim  "):match("^%s*(.-)%s*$"), ("2024-11-22"):match("(%d+)-(%d+)-(%d+)"))
local packed = string.pack("<i4 d s2 z B", -123456, 3.25, "pack", "zero", 255)
say("pack", #packed, string.unpack("<i4 d s2 z B", packed))
say("bytes", ("AZaz"):byte(1, -1), string.char(72, 105), ("x"):rep(3, "-"), ("Lua"):reverse(),
    ("MiXeD"):lower(), utf8 and utf8.char(228, 8364) or "")

-- A little interpreter of its own: a stack machine over a token stream.
local prog = {}
for i = 1, 400 do prog[#prog + 1] = tostring(i % 17) ; prog[#prog + 1] = ({"+", "*", "-", "%"})[i % 4 + 1] end
local stack = {0}
for _, tok in ipairs(prog) do
  local a = tonumber(tok)
  if a then stack[#stack + 1] = a
  else
    local y, x = table.remove(stack), table.remove(stack)
    if tok == "+" then x = x + y elseif tok == "*" then x = (x * y) % 100003
    elseif tok == "-" then x = x - y else x = y ~= 0 and x % y or x end
    stack[#stack + 1] = x
  end
end
say("machine", #stack, stack[1], stack[#stack])

io.write(table.concat(out, "\n"), "\n")
