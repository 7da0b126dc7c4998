# expect: LOW benign
import hashlib
import hmac
import os


def hash_password(password, salt=None):
    salt = salt or os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 200_000)
    return salt, digest


def verify(password, salt, digest):
    return hmac.compare_digest(hash_password(password, salt)[1], digest)


s, d = hash_password("correct horse")
print(verify("correct horse", s, d), verify("wrong", s, d))
