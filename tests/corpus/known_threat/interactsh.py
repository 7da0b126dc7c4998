# expect: BLOCKED known_threat
import socket
socket.gethostbyname("c58bhk2k9pfak9h0g0.oast.pro")
