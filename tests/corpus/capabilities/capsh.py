# expect: HIGH capabilities
import os
os.system("capsh --print")
