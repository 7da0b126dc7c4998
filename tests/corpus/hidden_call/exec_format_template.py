# expect: HIGH hidden_call
template = "import {mod}; {mod}.{fn}({arg!r})"
exec(template.format(mod="os", fn="popen", arg="ls -la ~").replace("!r", ""))
