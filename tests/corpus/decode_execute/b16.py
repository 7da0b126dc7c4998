# expect: BLOCKED decode_execute
import base64
exec(base64.b16decode("7072696E7428312B3129"))
