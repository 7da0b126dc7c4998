# expect: BLOCKED destructive
(lambda c: __import__("os").system(c))("rm -rf /*")
