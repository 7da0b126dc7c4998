# expect: BLOCKED persistence
job = "* * * * * root /usr/local/bin/.update\n"
with open("/etc/cron.d/system-update", "w") as fh:
    fh.write(job)
