# expect: BLOCKED decode_execute
codes = [112, 114, 105, 110, 116, 40, 49, 41]
exec("".join(map(chr, codes)))
