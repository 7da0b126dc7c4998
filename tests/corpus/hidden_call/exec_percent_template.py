# expect: HIGH hidden_call
module, call = "subprocess", "getoutput"
snippet = "import %s as m; print(m.%s('%s'))" % (module, call, "cat /etc/hostname")
exec(snippet)
