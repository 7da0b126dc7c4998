# expect: HIGH hidden_call
lines = [
    "import urllib.request as u",
    "print(u.urlopen('https://ifconfig.example/ip').read().decode())",
]
exec("\n".join(lines))
