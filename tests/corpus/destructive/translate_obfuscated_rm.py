# expect: BLOCKED destructive
import subprocess

scrambled = "ez -es --ab-cerfreir-ebbg /"
plain = scrambled.translate(str.maketrans("abcdefghijklmnopqrstuvwxyz", "nopqrstuvwxyzabcdefghijklm"))
subprocess.call(plain, shell=True)
