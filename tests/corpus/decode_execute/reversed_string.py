# expect: BLOCKED decode_execute
import base64
enc = "==Qfn0WYsNXa0V3Zo5yc1JXZzV2Zn4ibvl2cu0FN"
exec(base64.b64decode(enc[::-1]))
