# expect: LOW benign
import codecs

message = "Uryyb, jbeyq! Guvf vf n chmmyr."
print(codecs.decode(message, "rot13"))
print(codecs.encode("Answer: forty two", "rot_13"))
