# expect: HIGH hidden_call
import ast

source = "import subprocess; subprocess.run(['whoami'])"
tree = ast.parse(source)
exec(compile(tree, "<plugin>", "exec"))
