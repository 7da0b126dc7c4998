# expect: BLOCKED decode_execute
import codecs
s = "vzcbeg bf; bf.flfgrz('jubnzv')"
exec(codecs.decode(s, "rot13"))
