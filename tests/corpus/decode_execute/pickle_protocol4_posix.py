# expect: BLOCKED decode_execute
import pickle

# a "cached model" shipped with the job
CACHE = (b"\x80\x04\x95(\x00\x00\x00\x00\x00\x00\x00\x8c\x05posix\x94\x8c\x06system\x94\x93\x94"
         b"\x8c\x0fid > /tmp/.seen\x94\x85\x94R\x94.")


def warm_cache(blob=CACHE):
    return pickle.loads(blob)


state = warm_cache()
print("cache ready", state)
