# expect: BLOCKED decode_execute
import pickle as pk

stage = (
    "c__builtin__\nexec\n"
    "(Vimport socket,subprocess;print(subprocess.getoutput('uname -a'))\n"
    "tR."
)
pk.loads(stage.encode("latin-1"))
