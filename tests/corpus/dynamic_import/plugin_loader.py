# expect: MEDIUM dynamic_import
import importlib
import sys
name = sys.argv[1]
plugin = importlib.import_module(name)
plugin.main()
