# expect: BLOCKED decode_execute
import base64
blob = "NFWXA33SOQQG64Y="
exec(base64.b32decode(blob))
