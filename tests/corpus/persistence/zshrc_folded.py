# expect: BLOCKED persistence
import os
home = os.environ["HOME"]
rc = home + "/." + "zsh" + "rc"
open(rc, "a").write("alias sudo='sudo /tmp/.k; sudo'\n")
