# expect: BLOCKED decode_execute
__import__("builtins").exec(__import__("zlib").decompress(__import__("base64").b64decode("eJzLzC3ILypRSM7PS0nNS1dIK8rPVUgsSk7NS1VITgUAoZkJ+A==")))
